import CLibUV
import Synchronization
import Testing
import UVCombineLoop
import UVCombineTesting

@Suite("UVLoop")
struct UVLoopTests {
    @Test func runReturnsAtOnceWithNothingToDo() {
        withLoop { loop in
            #expect(loop.run() == false)
            #expect(loop.isInLoop) // the thread that last ran it
        }
    }

    @Test func aLoopThatNeverRanHasNoThread() throws {
        let loop = try UVLoop()
        #expect(!loop.isInLoop)
        try loop.close()
    }

    @Test func actionsScheduledBeforeRunRunInOrderOnTheLoopThread() {
        withLoop { loop in
            let log = Shared<[Int]>([])
            let me = threadID()
            for i in 1...3 {
                loop.schedule {
                    #expect(loop.isInLoop)
                    #expect(threadID() == me)
                    log.append(i)
                }
            }
            #expect(log.value.isEmpty) // nothing runs before run()
            loop.run()
            #expect(log.value == [1, 2, 3])
        }
    }

    @Test func scheduleFromTheLoopThreadNeverRunsInline() {
        withLoop { loop in
            let log = Shared<[String]>([])
            loop.schedule {
                loop.schedule { log.append("inner") }
                log.append("outer done")
            }
            loop.run()
            #expect(log.value == ["outer done", "inner"])
        }
    }

    @Test func runOnceAndNoWaitRunOneIteration() {
        withLoop { loop in
            let count = Shared(0)
            loop.schedule { count.withLock { $0 += 1 } }
            #expect(loop.run(.noWait) == false)
            #expect(count.value == 1)
            let repeating = loop.schedule(after: loop.now, interval: .milliseconds(1)) {
                count.withLock { $0 += 1 }
            }
            // One iteration at a time (each waits for the timer).
            while count.value < 3 {
                #expect(loop.run(.once) == true) // the repeating timer stays active
            }
            repeating.cancel()
            loop.run()
        }
    }

    @Test func stopFromTheLoopThreadEndsRun() {
        withLoop { loop in
            let count = Shared(0)
            let repeating = loop.schedule(after: loop.now, interval: .milliseconds(1)) {
                if count.withLock({ $0 += 1; return $0 }) == 3 { loop.stop() }
            }
            #expect(loop.run() == true) // stopped with the timer still active
            // The iteration that called stop() completes: a late tick may
            // catch up in the same timer pass.
            let atReturn = count.value
            #expect(atReturn == 3 || atReturn == 4)
            repeating.cancel()
            #expect(loop.run() == false)
            #expect(count.value == atReturn)
        }
    }

    @Test func stopFromAnotherThreadEndsRun() {
        withLoop { loop in
            let token = loop.keepAlive()
            let started = Atomic<Bool>(false)
            loop.schedule { started.store(true, ordering: .releasing) }
            let thread = TestThread {
                spinUntil { started.load(ordering: .acquiring) }
                loop.stop()
            }
            loop.run() // would block forever without the stop
            thread.join()
            let didStart = started.load(ordering: .acquiring)
            #expect(didStart)
            token.cancel()
            loop.run()
        }
    }

    @Test func keepAliveHoldsRunUntilCancelledFromAnotherThread() {
        withLoop { loop in
            let token = loop.keepAlive()
            let ran = Shared<[Int]>([])
            let thread = TestThread {
                for i in 0..<100 { loop.schedule { ran.append(i) } }
                loop.schedule { token.cancel() }
            }
            loop.run()
            thread.join()
            #expect(ran.value == Array(0..<100))
        }
    }

    @Test func closeDiscardsQueuedActionsAndReleasesThem() throws {
        weak var captured: Token?
        let ran = Shared(false)
        let loop = try UVLoop()
        do {
            let token = Token()
            captured = token
            loop.schedule { _ = token; ran.withLock { $0 = true } }
        }
        #expect(captured != nil)
        try loop.close()
        #expect(captured == nil)
        #expect(ran.value == false)
        loop.schedule { ran.withLock { $0 = true } } // after close: discarded
        #expect(ran.value == false)
        try loop.close() // idempotent
    }

    @Test func closeStopsActiveTimers() throws {
        weak var action: Token?
        let loop = try UVLoop()
        do {
            let token = Token()
            action = token
            _ = loop.schedule(after: loop.now, interval: .milliseconds(1)) { _ = token }
            loop.schedule(after: loop.now.advanced(by: .seconds(3600))) { _ = token }
            loop.schedule(after: loop.now) { loop.stop() }
            loop.run()
        }
        #expect(action != nil)
        try loop.close()
        #expect(action == nil)
    }

    @Test func closeThrowsBusyForHandlesItDoesNotOwn() throws {
        let loop = try UVLoop()
        let foreign = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
        defer { foreign.deallocate() }
        uv_timer_init(loop.uvLoop, foreign)
        #expect(throws: UVError.busy) { try loop.close() }
        uv_close(UnsafeMutableRawPointer(foreign).assumingMemoryBound(to: uv_handle_t.self), nil)
        uv_run(loop.uvLoop, UV_RUN_DEFAULT)
        try loop.close()
    }

    @Test func adoptedLoopIsRunAndClosedByItsHost() throws {
        let raw = UnsafeMutablePointer<uv_loop_t>.allocate(capacity: 1)
        defer { raw.deallocate() }
        #expect(uv_loop_init(raw) == 0)
        weak var released: UVLoop?
        let log = Shared<[String]>([])
        do {
            let loop = try UVLoop(adopting: raw)
            released = loop
            #expect(loop.isInLoop)
            loop.schedule { log.append("action") }
            loop.schedule(after: loop.now.advanced(by: .milliseconds(2))) { log.append("timer") }
            // The host runs its loop: the timer keeps it alive, the queued
            // action runs in the same iterations.
            #expect(uv_run(raw, UV_RUN_DEFAULT) == 0)
            #expect(log.value == ["action", "timer"])
            _ = loop.schedule(after: loop.now, interval: .seconds(1)) { log.append("repeat") }
            try loop.close() // closes our handles; the host runs their callbacks
        }
        #expect(released != nil)
        #expect(uv_run(raw, UV_RUN_DEFAULT) == 0)
        #expect(released == nil)
        #expect(uv_loop_close(raw) == 0)
    }

    @Test func defaultLoopIsOneProcessWideLoop() {
        #expect(UVLoop.default === UVLoop.default)
        #expect(UVLoop.default.uvLoop == uv_default_loop())
    }

    @Test func manyThreadsScheduleAndEverythingRunsInPerThreadOrder() {
        let threads = 8
        let perThread = 10_000
        withLoop { loop in
            let token = loop.keepAlive()
            let loopThread = threadID()
            // Loop-thread state: only the actions touch it.
            let state = Shared((next: [Int](repeating: 0, count: threads), outOfOrder: 0, offThread: 0, total: 0))
            var producers: [TestThread] = []
            for t in 0..<threads {
                producers.append(TestThread {
                    for i in 0..<perThread {
                        loop.schedule {
                            let done = state.withLock { s -> Bool in
                                if s.next[t] != i { s.outOfOrder += 1 }
                                s.next[t] = i + 1
                                if threadID() != loopThread { s.offThread += 1 }
                                s.total += 1
                                return s.total == threads * perThread
                            }
                            if done { token.cancel() }
                        }
                    }
                })
            }
            loop.run()
            for producer in producers { producer.join() }
            let final = state.withLock { ($0.total, $0.outOfOrder, $0.offThread) }
            #expect(final.0 == threads * perThread)
            #expect(final.1 == 0)
            #expect(final.2 == 0)
        }
    }

    @Test func wakeUpLatencyFromAnotherThread() {
        withLoop { loop in
            let token = loop.keepAlive()
            let samples = 2_000
            let latencies = Shared<[UInt64]>([])
            let acknowledged = Atomic<Int>(0)
            let producer = TestThread {
                for i in 0..<samples {
                    let sent = uv_hrtime()
                    loop.schedule {
                        latencies.append(uv_hrtime() - sent)
                        acknowledged.store(i + 1, ordering: .releasing)
                    }
                    // One at a time, so each send wakes a sleeping loop.
                    spinUntil { acknowledged.load(ordering: .acquiring) == i + 1 }
                }
                loop.schedule { token.cancel() }
            }
            loop.run()
            producer.join()
            let values = latencies.value
            #expect(values.count == samples)
            let p50 = percentile(values, 0.5), p99 = percentile(values, 0.99)
            print("UVLoop wake-up latency over \(samples) cross-thread schedules: p50 \(p50 / 1000) µs, p99 \(p99 / 1000) µs")
            #expect(p50 < 5_000_000) // 5 ms: a lost wake-up would stall for good
        }
    }
}
