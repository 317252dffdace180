import Dispatch
import Synchronization
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineTesting

@Suite("UVAnyScheduler")
struct UVAnySchedulerTests {
    @Test func forwardsEverythingToTheWrappedScheduler() {
        let test = DispatchQueue.test
        let scheduler: UVAnySchedulerOf<DispatchQueue> = test.eraseToUVAnyScheduler()
        #expect(scheduler.now == test.now)
        #expect(scheduler.minimumTolerance == test.minimumTolerance)
        let log = Mutex<[String]>([])
        scheduler.schedule { log.withLock { $0.append("now") } }
        scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { log.withLock { $0.append("after") } }
        let repeating = scheduler.schedule(after: scheduler.now.advanced(by: .seconds(2)), interval: .seconds(1)) {
            log.withLock { $0.append("tick") }
        }
        test.advance(by: .seconds(3))
        repeating.cancel()
        test.advance(by: .seconds(3))
        #expect(log.withLock { $0 } == ["now", "after", "tick", "tick"])
        #expect(scheduler.now == test.now)
    }

    @Test func operatorsRunOnAnErasedScheduler() {
        let test = DispatchQueue.test
        let scheduler = test.eraseToUVAnyScheduler()
        let out = test.marbles("a-b--c---|", tick: .seconds(1)) {
            $0.debounce(for: .seconds(2), scheduler: scheduler)
        }
        #expect(out == "----b--c-|")
    }

    @Test func wrappingTwiceBehavesLikeWrappingOnce() {
        let test = DispatchQueue.test
        let once = UVAnyScheduler(test)
        let twice = UVAnyScheduler(once)
        let ran = Mutex(false)
        twice.schedule { ran.withLock { $0 = true } }
        test.advance()
        #expect(ran.withLock { $0 })
    }

    @Test func closureInitialiserCallsTheClosures() {
        let calls = Mutex<[String]>([])
        let base = ImmediateScheduler.shared
        let scheduler = UVAnyScheduler<ImmediateScheduler.SchedulerTimeType, Never>(
            minimumTolerance: { calls.withLock { $0.append("tolerance") }; return 0 },
            now: { calls.withLock { $0.append("now") }; return base.now },
            scheduleImmediately: { _, action in calls.withLock { $0.append("immediately") }; action() },
            delayed: { _, _, _, action in calls.withLock { $0.append("delayed") }; action() },
            interval: { _, _, _, _, action in
                calls.withLock { $0.append("interval") }
                action()
                return AnyCancellable {}
            })
        let count = Mutex(0)
        _ = scheduler.minimumTolerance
        scheduler.schedule { count.withLock { $0 += 1 } }
        scheduler.schedule(after: scheduler.now, tolerance: 0) { count.withLock { $0 += 1 } }
        _ = scheduler.schedule(after: base.now, interval: 1, tolerance: 0, options: nil) { count.withLock { $0 += 1 } }
        #expect(calls.withLock { $0 } == ["tolerance", "immediately", "now", "delayed", "interval"])
        #expect(count.withLock { $0 } == 3)
    }

    @Test func realDispatchQueueBehindAnyScheduler() {
        let queue = DispatchQueue(label: "uvcombine.any")
        let scheduler: UVAnySchedulerOf<DispatchQueue> = queue.eraseToUVAnyScheduler()
        let done = DispatchSemaphore(value: 0)
        let onQueue = Mutex(false)
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 3)
        let c = Just(1).receive(on: scheduler).sink { _ in
            onQueue.withLock { $0 = DispatchQueue.getSpecific(key: key) == 3 }
            done.signal()
        }
        done.wait()
        #expect(onQueue.withLock { $0 })
        c.cancel()
    }
}
