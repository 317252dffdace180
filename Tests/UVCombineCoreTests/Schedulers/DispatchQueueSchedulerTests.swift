import Dispatch
import Foundation
import Synchronization
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineFoundation

@Suite("DispatchQueue as a Scheduler")
struct DispatchQueueSchedulerTests {
    typealias Time = DispatchQueue.SchedulerTimeType
    typealias Stride = DispatchQueue.SchedulerTimeType.Stride

    // MARK: Time

    @Test func distanceAndAdvanceInNanoseconds() {
        let t1 = Time(DispatchTime(uptimeNanoseconds: 10_000))
        let t2 = Time(DispatchTime(uptimeNanoseconds: 10_431))
        #expect(t1.distance(to: t2) == .nanoseconds(431))
        #expect(t2.distance(to: t1) == .nanoseconds(-431))
        #expect(t1.advanced(by: .nanoseconds(431)) == t2)
        #expect(t2.advanced(by: .nanoseconds(-431)) == t1)
        #expect(t1 < t2)
    }

    @Test func distantFutureAndClamping() {
        let t = Time(DispatchTime(uptimeNanoseconds: 10_000))
        let future = Time(.distantFuture)
        #expect(t.distance(to: future) == .nanoseconds(.max))
        #expect(future.distance(to: t) == .nanoseconds(.max))
        #expect(future.distance(to: future) == .nanoseconds(0))
        #expect(t.advanced(by: .nanoseconds(.max)).dispatchTime == .distantFuture)
        let early = Time(DispatchTime(uptimeNanoseconds: 1))
        #expect(early.advanced(by: .nanoseconds(-1_000)).dispatchTime.uptimeNanoseconds == 1)
    }

    @Test func distanceIsExactWhereverItFitsInAnInt() {
        // Combine computes the distance through DispatchTime: no clamping
        // for instants at or beyond Int.max nanoseconds as long as the
        // difference fits; a difference that does not fit is .max, in
        // either direction.
        let t1 = Time(DispatchTime(uptimeNanoseconds: 10_000))
        let t2 = Time(DispatchTime(uptimeNanoseconds: 10_431))
        let intMax = Time(DispatchTime(uptimeNanoseconds: UInt64(Int.max)))
        let nearlyDistant = Time(DispatchTime(uptimeNanoseconds: DispatchTime.distantFuture.uptimeNanoseconds - 1_024))
        #expect(t1.distance(to: intMax) == .nanoseconds(.max - 10_000))
        #expect(intMax.distance(to: t1) == .nanoseconds(-(.max - 10_000)))
        #expect(t2.distance(to: intMax) == .nanoseconds(.max - 10_431))
        #expect(intMax.distance(to: t2) == .nanoseconds(-(.max - 10_431)))
        #expect(t1.distance(to: nearlyDistant) == .nanoseconds(.max))
        #expect(nearlyDistant.distance(to: t1) == .nanoseconds(.max))
        #expect(nearlyDistant.distance(to: nearlyDistant) == .nanoseconds(0))
        #expect(intMax.distance(to: intMax) == .nanoseconds(0))
    }

    @Test func strideMultiplicationScalesAsCombine() {
        // Combine (iOS 14 and later) multiplies strides as durations in
        // seconds: 1 s * 10 s is 10 s.
        #expect((Stride.seconds(1) * .seconds(10)).magnitude == 10_000_000_000)
        #expect((Stride.milliseconds(500) * .seconds(4)).magnitude == 2_000_000_000)
    }

    @Test func timeIsCodableAsUptimeNanoseconds() throws {
        let time = Time(DispatchTime(uptimeNanoseconds: 42))
        let data = try JSONEncoder().encode(["value": time])
        #expect(String(decoding: data, as: UTF8.self) == #"{"value":42}"#)
        #expect(try JSONDecoder().decode([String: Time].self, from: data)["value"] == time)
    }

    // MARK: Stride

    @Test func literalsAreSeconds() {
        let whole: Stride = 2
        let fraction: Stride = 1.5
        #expect(whole.magnitude == 2_000_000_000)
        #expect(fraction.magnitude == 1_500_000_000)
        #expect(Stride(exactly: 3 as UInt8)?.magnitude == 3_000_000_000)
        #expect(Stride(exactly: UInt64.max) == nil)
    }

    @Test func unitsAndClamping() {
        #expect(Stride.seconds(2).magnitude == 2_000_000_000)
        #expect(Stride.seconds(0.25).magnitude == 250_000_000)
        #expect(Stride.milliseconds(2).magnitude == 2_000_000)
        #expect(Stride.microseconds(2).magnitude == 2_000)
        #expect(Stride.nanoseconds(2).magnitude == 2)
        #expect(Stride.seconds(Int.max).magnitude == .max)
        #expect(Stride.milliseconds(Int.min).magnitude == .min)
        #expect(Stride.seconds(Double.infinity).magnitude == .max)
    }

    @Test func convertsToAndFromDispatchTimeInterval() {
        #expect(Stride(.seconds(2)).magnitude == 2_000_000_000)
        #expect(Stride(.milliseconds(2)).magnitude == 2_000_000)
        #expect(Stride(.microseconds(2)).magnitude == 2_000)
        #expect(Stride(.nanoseconds(2)).magnitude == 2)
        #expect(Stride(.never).magnitude == .max)
        #expect(Stride.milliseconds(3).timeInterval == .nanoseconds(3_000_000))
    }

    @Test func arithmetic() {
        #expect(Stride.milliseconds(1) + .microseconds(1) == .nanoseconds(1_001_000))
        #expect(Stride.nanoseconds(7) - .nanoseconds(12) == .nanoseconds(-5))
        var s = Stride.seconds(1)
        s += .seconds(1)
        s -= .milliseconds(500)
        #expect(s == .milliseconds(1_500))
        #expect(Stride.nanoseconds(1) < .nanoseconds(2))
        #expect(Stride.nanoseconds(-2) > .microseconds(-10))
    }

    @Test func multiplicationTreatsStridesAsSeconds() {
        #expect(Stride.milliseconds(1_500) * 2 == .seconds(3))
        #expect(Stride.seconds(-2) * 3 == .seconds(-6))
        #expect(Stride.seconds(2) * 0.5 == .seconds(1))
        // As in Combine, tiny strides multiply to (almost) nothing.
        #expect((Stride.nanoseconds(18) * .microseconds(1)).magnitude == 0)
        #expect((Stride.nanoseconds(15) * .nanoseconds(2)).magnitude == 0)
        // Overflow clamps.
        #expect((Stride.seconds(Int(Int32.max)) * .seconds(Int(Int32.max))).magnitude == .max)
        var s = Stride.seconds(4)
        s *= 0.25
        #expect(s == .seconds(1))
    }

    @Test func strideIsCodableAsInCombine() throws {
        let data = try JSONEncoder().encode(["value": Stride.nanoseconds(419_872)])
        #expect(String(decoding: data, as: UTF8.self) == #"{"value":{"_nanoseconds":419872}}"#)
        #expect(try JSONDecoder().decode([String: Stride].self, from: data)["value"] == .nanoseconds(419_872))
    }

    // MARK: Scheduling on real threads

    @Test func scheduleRunsAsynchronouslyOnTheQueue() {
        let queue = DispatchQueue(label: "uvcombine.schedule")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 1)
        let done = DispatchSemaphore(value: 0)
        let ranOnQueue = Mutex(false)
        queue.schedule {
            ranOnQueue.withLock { $0 = DispatchQueue.getSpecific(key: key) == 1 }
            done.signal()
        }
        done.wait()
        #expect(ranOnQueue.withLock { $0 })
    }

    @Test func optionsGroupTracksTheAction() {
        let queue = DispatchQueue(label: "uvcombine.group")
        let group = DispatchGroup()
        let ran = Mutex(false)
        queue.schedule(options: .init(qos: .userInitiated, group: group)) { ran.withLock { $0 = true } }
        group.wait()
        #expect(ran.withLock { $0 })
    }

    @Test func scheduleAfterNeverRunsEarly() {
        let queue = DispatchQueue(label: "uvcombine.after")
        let done = DispatchSemaphore(value: 0)
        let deadline = queue.now.advanced(by: .milliseconds(20))
        let lateEnough = Mutex(false)
        queue.schedule(after: deadline) {
            lateEnough.withLock { $0 = queue.now >= deadline }
            done.signal()
        }
        done.wait()
        #expect(lateEnough.withLock { $0 })
    }

    @Test func repeatingActionRunsUntilCancelled() {
        let queue = DispatchQueue(label: "uvcombine.repeat")
        let count = Mutex(0)
        let third = DispatchSemaphore(value: 0)
        let holder = TokenHolder()
        // Scheduled from the queue itself, so no tick can run before the
        // token is stored (on a loaded machine the first tick may otherwise
        // come before the assignment, and the third would find no token).
        queue.sync {
            holder.token = queue.schedule(after: queue.now.advanced(by: .milliseconds(1)), interval: .milliseconds(2)) {
                let n = count.withLock { $0 += 1; return $0 }
                if n == 3 {
                    holder.token?.cancel() // on the queue: no further tick is in flight
                    third.signal()
                }
            }
        }
        third.wait()
        // Let several more periods pass on the same serial queue, then check.
        let later = DispatchSemaphore(value: 0)
        queue.schedule(after: queue.now.advanced(by: .milliseconds(20))) { later.signal() }
        later.wait()
        #expect(count.withLock { $0 } == 3)
    }

    @Test func droppingTheRepeatingCancellableCancelsIt() {
        let queue = DispatchQueue(label: "uvcombine.repeat.drop")
        let count = Mutex(0)
        queue.sync {
            // Created and dropped on the queue, before any tick could run.
            _ = queue.schedule(after: queue.now.advanced(by: .milliseconds(1)), interval: .milliseconds(1)) {
                count.withLock { $0 += 1 }
            }
        }
        let later = DispatchSemaphore(value: 0)
        queue.schedule(after: queue.now.advanced(by: .milliseconds(10))) { later.signal() }
        later.wait()
        #expect(count.withLock { $0 } == 0)
    }

    @Test func receiveOnGlobalQueueDelivers() {
        let done = DispatchSemaphore(value: 0)
        let values = Mutex<[Int]>([])
        let c = [1, 2, 3].publisher
            .receive(on: DispatchQueue.global())
            .sink(receiveCompletion: { _ in done.signal() },
                  receiveValue: { v in values.withLock { $0.append(v) } })
        done.wait()
        #expect(values.withLock { $0 } == [1, 2, 3])
        c.cancel()
    }

    @Test func debounceOnARealQueue() {
        let queue = DispatchQueue(label: "uvcombine.debounce")
        let subject = PassthroughSubject<Int, Never>()
        let done = DispatchSemaphore(value: 0)
        let values = Mutex<[Int]>([])
        let c = subject.debounce(for: .milliseconds(30), scheduler: queue).sink { v in
            dispatchPrecondition(condition: .onQueue(queue))
            values.withLock { $0.append(v) }
            done.signal()
        }
        for i in 0..<10 { subject.send(i) } // a burst far shorter than 30 ms
        done.wait()
        #expect(values.withLock { $0 } == [9])
        c.cancel()
    }
}

/// Lets a repeating action cancel itself.
final class TokenHolder: @unchecked Sendable {
    var token: (any Cancellable)?
}
