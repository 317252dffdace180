import Foundation
import Testing
import UVCombineLoop

@Suite("UVLoop.SchedulerTimeType")
struct SchedulerTimeTypeTests {
    typealias Time = UVLoop.SchedulerTimeType
    typealias Stride = UVLoop.SchedulerTimeType.Stride

    @Test func literalsAreSeconds() {
        let one: Stride = 1
        let half: Stride = 0.5
        #expect(one.nanoseconds == 1_000_000_000)
        #expect(half.nanoseconds == 500_000_000)
        #expect(Stride(exactly: 3)?.nanoseconds == 3_000_000_000)
        #expect(Stride(exactly: Int.max) == nil)
        #expect(Stride(0.25) == .milliseconds(250))
    }

    @Test func constructorsAgreeAndSaturate() {
        #expect(Stride.seconds(2) == .milliseconds(2_000))
        #expect(Stride.milliseconds(3) == .microseconds(3_000))
        #expect(Stride.microseconds(4) == .nanoseconds(4_000))
        #expect(Stride.seconds(1.5) == .milliseconds(1_500))
        #expect(Stride.seconds(Int.max).nanoseconds == .max)
        #expect(Stride.seconds(-Int.max).nanoseconds == .min)
        #expect(Stride.seconds(Double.infinity).nanoseconds == .max)
        #expect(Stride.seconds(Double.nan) == .zero)
        #expect(Stride.milliseconds(1500).timeInterval == 1.5)
        #expect(Stride.milliseconds(1).magnitude == 1_000_000)
    }

    @Test func arithmeticIsNumericAndSaturating() {
        var stride: Stride = .milliseconds(10)
        stride += .milliseconds(5)
        #expect(stride == .milliseconds(15))
        stride -= .milliseconds(20)
        #expect(stride == .milliseconds(-5))
        #expect(-stride == .milliseconds(5))
        stride.negate()
        #expect(stride == .milliseconds(5))
        let three = 3
        #expect(stride * three == .milliseconds(15))
        #expect(Stride.nanoseconds(2) * Stride.nanoseconds(3) == .nanoseconds(6)) // Numeric's product
        #expect(Stride.nanoseconds(.max) + .nanoseconds(1) == .nanoseconds(.max))
        #expect(Stride.nanoseconds(.min) - .nanoseconds(1) == .nanoseconds(.min))
        #expect(-Stride.nanoseconds(.min) == .nanoseconds(.max))
        #expect(Stride.seconds(1) < .seconds(2))
        #expect([Stride.seconds(3), .milliseconds(1), .zero].sorted() == [.zero, .milliseconds(1), .seconds(3)])
    }

    @Test func instantsAdvanceAndMeasureDistance() {
        let start = Time(uptimeNanoseconds: 1_000)
        #expect(start.advanced(by: .nanoseconds(500)).uptimeNanoseconds == 1_500)
        #expect(start.advanced(by: .nanoseconds(-5_000)).uptimeNanoseconds == 0)
        #expect(Time(uptimeNanoseconds: .max - 1).advanced(by: .seconds(1)).uptimeNanoseconds == .max)
        #expect(start.distance(to: Time(uptimeNanoseconds: 4_000)) == .nanoseconds(3_000))
        #expect(Time(uptimeNanoseconds: 4_000).distance(to: start) == .nanoseconds(-3_000))
        #expect(Time(uptimeNanoseconds: 0).distance(to: Time(uptimeNanoseconds: .max)) == .nanoseconds(.max))
        #expect(Time(uptimeNanoseconds: .max).distance(to: Time(uptimeNanoseconds: 0)) == .nanoseconds(.min))
        #expect(start < start.advanced(by: .nanoseconds(1)))
        #expect(Time(uptimeNanoseconds: 1_500_000_000).description == "1.500000000s")
    }

    @Test func codableRoundTrips() throws {
        let time = Time(uptimeNanoseconds: 123_456_789)
        let stride = Stride.milliseconds(-42)
        let data = try JSONEncoder().encode([time])
        #expect(String(decoding: data, as: UTF8.self) == "[123456789]")
        #expect(try JSONDecoder().decode([Time].self, from: data) == [time])
        let strideData = try JSONEncoder().encode([stride])
        #expect(try JSONDecoder().decode([Stride].self, from: strideData) == [stride])
    }

    @Test func nowIsMonotonic() throws {
        let loop = try UVLoop()
        let a = loop.now
        let b = loop.now
        #expect(a <= b)
        try loop.close()
    }
}
