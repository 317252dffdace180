import Foundation
import Testing
import UVCombineCore
import UVCombineFoundation

@Suite("ImmediateScheduler")
struct ImmediateSchedulerTests {
    typealias Stride = ImmediateScheduler.SchedulerTimeType.Stride

    @Test func everyKindOfScheduleRunsAtOnceOnTheCallingThread() {
        let scheduler = ImmediateScheduler.shared
        var log: [String] = []
        scheduler.schedule { log.append("now") }
        scheduler.schedule(after: scheduler.now.advanced(by: 100)) { log.append("after") }
        let repeating = scheduler.schedule(after: scheduler.now, interval: 1) { log.append("repeating") }
        #expect(log == ["now", "after", "repeating"]) // the repeating action ran once
        repeating.cancel()
        #expect(log.count == 3)
    }

    @Test func timeNeverAdvances() {
        let now = ImmediateScheduler.shared.now
        #expect(now.distance(to: now.advanced(by: 5)) == 0)
        #expect(ImmediateScheduler.shared.minimumTolerance == 0)
    }

    @Test func strideArithmeticAndUnits() {
        let a: Stride = 7
        let b: Stride = 2.9
        #expect(b.magnitude == 2)
        #expect((a + b).magnitude == 9)
        #expect((a - b).magnitude == 5)
        #expect((a * b).magnitude == 14)
        var c = a
        c += 1
        c -= 2
        c *= 3
        #expect(c.magnitude == 18)
        #expect(Stride.seconds(3) == 0)
        #expect(Stride.seconds(1.5) == 0)
        #expect(Stride.milliseconds(3) == 0)
        #expect(Stride.microseconds(3) == 0)
        #expect(Stride.nanoseconds(3) == 0)
        #expect(Stride(exactly: UInt64.max) == nil)
        #expect(Stride(-1) < Stride(1))
    }

    @Test func strideIsCodableAsItsMagnitude() throws {
        let data = try JSONEncoder().encode(["value": Stride(-42)])
        #expect(String(decoding: data, as: UTF8.self) == #"{"value":{"magnitude":-42}}"#)
        let back = try JSONDecoder().decode([String: Stride].self, from: data)
        #expect(back["value"] == Stride(-42))
    }

    @Test func receiveOnImmediateSchedulerIsSynchronous() {
        var seen: [Int] = []
        let c = [1, 2, 3].publisher.receive(on: ImmediateScheduler.shared).sink { seen.append($0) }
        #expect(seen == [1, 2, 3])
        c.cancel()
    }
}
