import CLibUV
import Synchronization
import Testing
import UVCombineCore
import UVCombineLoop
import UVCombineTesting

@Suite("UVLoop as a Scheduler")
struct UVLoopSchedulerTests {
    @Test func readsLikeAsyncAfter() {
        withLoop { loop in
            let start = loop.now
            let ranAt = Shared<UVLoop.SchedulerTimeType?>(nil)
            // DispatchQueue.main.asyncAfter(deadline: .now() + 0.05) { … }
            loop.schedule(after: loop.now.advanced(by: .milliseconds(50))) {
                ranAt.withLock { $0 = loop.now }
            }
            loop.run() // the pending action keeps the loop running
            let elapsed = start.distance(to: ranAt.value!)
            #expect(elapsed >= .milliseconds(50))
            #expect(elapsed < .seconds(1))
        }
    }

    @Test func actionsNeverRunBeforeTheirDeadline() {
        withLoop { loop in
            let early = Shared(0)
            let ran = Shared(0)
            let base = loop.now
            for i in 0..<200 {
                // Deadlines spread over 0...20 ms at odd sub-millisecond offsets.
                let deadline = base.advanced(by: .microseconds(i * 101))
                loop.schedule(after: deadline) {
                    if loop.now < deadline { early.withLock { $0 += 1 } }
                    ran.withLock { $0 += 1 }
                }
            }
            loop.run()
            #expect(ran.value == 200)
            #expect(early.value == 0)
        }
    }

    @Test func equalDeadlinesRunInSchedulingOrder() {
        withLoop { loop in
            let log = Shared<[Int]>([])
            let deadline = loop.now.advanced(by: .milliseconds(3))
            loop.schedule(after: deadline.advanced(by: .milliseconds(1))) { log.append(-1) }
            for i in 0..<100 { loop.schedule(after: deadline) { log.append(i) } }
            loop.run()
            #expect(log.value == Array(0..<100) + [-1])
            // Scheduled from the loop thread itself (no hop).
            log.withLock { $0 = [] }
            let again = loop.now.advanced(by: .milliseconds(2))
            for i in 0..<100 { loop.schedule(after: again) { log.append(i) } }
            loop.run()
            #expect(log.value == Array(0..<100))
        }
    }

    @Test func aPastDeadlineRunsSoon() {
        withLoop { loop in
            let ran = Shared(false)
            loop.schedule(after: UVLoop.SchedulerTimeType(uptimeNanoseconds: 0)) { ran.withLock { $0 = true } }
            loop.run()
            #expect(ran.value)
        }
    }

    @Test func repeatingActionsFollowAFixedScheduleAndNeverRunEarly() {
        withLoop { loop in
            let interval = UVLoop.SchedulerTimeType.Stride.milliseconds(3)
            let start = loop.now.advanced(by: .milliseconds(2))
            let runs = Shared<[UVLoop.SchedulerTimeType]>([])
            let box = Unchecked<(any Cancellable)?>(nil)
            let repeating = loop.schedule(after: start, interval: interval) {
                runs.append(loop.now)
                if runs.value.count == 30 { box.value?.cancel() }
            }
            box.value = repeating
            loop.run() // returns once the cancelled timer closed
            let times = runs.value
            #expect(times.count == 30)
            for (k, time) in times.enumerated() {
                #expect(time >= start.advanced(by: interval * k), "run \(k) was early")
            }
            let drift = start.advanced(by: interval * 29).distance(to: times[29])
            #expect(drift < .milliseconds(20))
        }
    }

    @Test func cancelInsideTheActionStopsIt() {
        weak var captured: Token?
        withLoop { loop in
            let count = Shared(0)
            let box = Unchecked<(any Cancellable)?>(nil)
            do {
                let token = Token()
                captured = token
                let repeating = loop.schedule(after: loop.now, interval: .milliseconds(1)) {
                    _ = token
                    if count.withLock({ $0 += 1; return $0 }) == 3 {
                        box.value?.cancel()
                        box.value?.cancel() // idempotent
                    }
                }
                box.value = repeating
            }
            loop.run()
            #expect(count.value == 3)
            box.value = nil
            #expect(captured == nil) // released when the handle closed
        }
    }

    @Test func cancelFromAnotherThreadWhileFiring() {
        withLoop { loop in
            let runs = Atomic<Int>(0)
            let cancelReturned = Atomic<Bool>(false)
            let repeating = loop.schedule(after: loop.now, interval: .milliseconds(1)) {
                runs.add(1, ordering: .acquiringAndReleasing)
                // Still inside the firing while the other thread cancels.
                spinUntil { cancelReturned.load(ordering: .acquiring) }
            }
            let target = Unchecked(repeating)
            let canceller = TestThread {
                spinUntil { runs.load(ordering: .acquiring) == 1 }
                target.value.cancel()
                cancelReturned.store(true, ordering: .releasing)
            }
            loop.run() // returns once the timer closed
            canceller.join()
            let total = runs.load(ordering: .acquiring)
            #expect(total == 1)
        }
    }

    @Test func cancelBeforeTheLoopRunsMeansItNeverRuns() {
        withLoop { loop in
            let ran = Shared(false)
            let repeating = loop.schedule(after: loop.now, interval: .milliseconds(1)) { ran.withLock { $0 = true } }
            repeating.cancel()
            loop.run()
            #expect(ran.value == false)
        }
    }

    @Test func hugeTimeoutsAndIntervalsSaturate() {
        withLoop { loop in
            let log = Shared<[String]>([])
            loop.schedule(after: loop.now.advanced(by: .seconds(Int.max))) { log.append("never") }
            loop.schedule(after: UVLoop.SchedulerTimeType(uptimeNanoseconds: .max)) { log.append("never") }
            let repeating = loop.schedule(after: loop.now, interval: .nanoseconds(.max)) { log.append("once") }
            loop.schedule(after: loop.now.advanced(by: .milliseconds(5))) { loop.stop() }
            #expect(loop.run() == true) // the far timers are still pending
            #expect(log.value == ["once"])
            repeating.cancel()
            // close() (in withLoop) closes the far timers.
        }
    }

    @Test func minimumToleranceIsTheLoopClocksMillisecond() throws {
        let loop = try UVLoop()
        #expect(loop.minimumTolerance == .milliseconds(1))
        try loop.close()
    }

    @Test(.enabled(if: isOptimizedBuild, "allocation counts are meaningful only with -c release"))
    func repeatingActionsAllocateNothingPerRun() {
        withLoop { loop in
            let count = Atomic<Int>(0)
            let stopAt = Atomic<Int>(20)
            let repeating = loop.schedule(after: loop.now, interval: .milliseconds(1)) {
                let n = count.add(1, ordering: .relaxed).newValue
                if n >= stopAt.load(ordering: .relaxed) { loop.stop() } // a late tick may catch up in the same pass
            }
            loop.run() // warm up
            stopAt.store(220, ordering: .relaxed)
            let mallocs = AllocationCounter.count { loop.run() }
            let runs = count.load(ordering: .relaxed)
            #expect(runs >= 220 && runs <= 222)
            #expect(mallocs == 0)
            repeating.cancel()
            loop.run()
        }
    }
}
