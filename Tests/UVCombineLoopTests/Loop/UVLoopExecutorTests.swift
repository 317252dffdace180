import Synchronization
import Testing
import UVCombineCore
import UVCombineLoop
import UVCombineTesting

/// An actor whose state lives on a loop's thread.
private actor LoopCounter {
    let loop: UVLoop
    var value = 0
    /// Times a method ran off the loop thread (must stay 0).
    var offLoop = 0

    init(loop: UVLoop) {
        self.loop = loop
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    func increment() -> Int {
        if !loop.isInLoop { offLoop += 1 }
        value += 1
        return value
    }

    func snapshot() -> (value: Int, offLoop: Int) { (value, offLoop) }
}

@Suite("UVLoop as a SerialExecutor and TaskExecutor")
struct UVLoopExecutorTests {
    @Test func actorStateIsOnlyTouchedOnTheLoopThread() async throws {
        let background = try UVLoopThread()
        let counter = LoopCounter(loop: background.loop)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<250 { _ = await counter.increment() }
                }
            }
        }
        let state = await counter.snapshot()
        #expect(state.value == 2_000)
        #expect(state.offLoop == 0)
        try background.shutdown()
    }

    @Test func taskExecutorPreferenceRunsTheTaskOnTheLoop() async throws {
        let background = try UVLoopThread()
        let loop = background.executor
        let onLoop = await Task(executorPreference: loop) { loop.isInLoop }.value
        #expect(onLoop)
        let stillOnLoop = await withTaskExecutorPreference(loop) {
            // A nonisolated async function runs on the preferred executor.
            await nonisolatedProbe(loop)
        }
        #expect(stillOnLoop)
        try background.shutdown()
    }

    // A task's first job may pass through the global executor before it
    // reaches the loop, so the ordering tests start inside a task that is
    // already on the loop: `Task.yield()` enqueues its job directly.
    @Test func jobsAndActionsShareOneQueueInEnqueueOrder() {
        withLoop { loop in
            let log = Shared<[String]>([])
            Task(executorPreference: loop) {
                log.append("job 1 \(loop.isInLoop)")
                loop.schedule { log.append("action 1") }
                await Task.yield() // the job is queued after action 1
                log.append("job 2 \(loop.isInLoop)")
                loop.schedule { log.append("action 2") }
                await Task.yield()
                log.append("job 3")
            }
            loop.run() // jobs the loop thread queued keep it running until they ran
            #expect(log.value == ["job 1 true", "action 1", "job 2 true", "action 2", "job 3"])
        }
    }

    @Test func jobsEnqueuedFromAnotherThreadRunBeforeRunReturns() {
        withLoop { loop in
            let log = Shared<[String]>([])
            Task(executorPreference: loop) { log.append("job \(loop.isInLoop)") }
            // The task reaches the loop's queue asynchronously; wait for it.
            spinUntil { loop.hasQueuedWorkForTesting }
            loop.run()
            #expect(log.value == ["job true"])
        }
    }

    @Test func jobsFromManyThreadsAtOnce() throws {
        let background = try UVLoopThread()
        let loop = background.loop
        let counts = JobCounts()
        let threads = (0..<4).map { _ in
            TestThread {
                for _ in 0..<500 {
                    Task(executorPreference: loop) { [counts] in
                        if !loop.isInLoop { counts.offLoop.add(1, ordering: .relaxed) }
                        counts.ran.add(1, ordering: .releasing)
                    }
                }
            }
        }
        for thread in threads { thread.join() }
        spinUntil { counts.ran.load(ordering: .acquiring) == 2_000 }
        #expect(counts.offLoop.load(ordering: .relaxed) == 0)
        try background.shutdown()
    }

    @Test func assumeIsolatedWorksOnTheLoopThread() {
        withLoop { loop in
            let counter = LoopCounter(loop: loop)
            let value = Shared<Int>(0)
            loop.schedule {
                // A scheduled action is not a Swift job: the runtime asks the
                // loop whether this thread is its own.
                let result = counter.assumeIsolated { $0.value += 1; return $0.value }
                value.withLock { $0 = result }
                loop.preconditionIsolated()
            }
            loop.run()
            #expect(value.value == 1)
        }
    }

    @Test func isolationQueriesOffTheLoop() throws {
        let background = try UVLoopThread()
        #expect(!background.loop.isInLoop)
        if #available(macOS 26.0, *) {
            #expect(background.loop.isIsolatingCurrentContext() == nil)
        }
        try background.shutdown()
    }

    @Test func checkIsolatedOffTheLoopNamesTheLoop() async throws {
        let neverRan = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let loop = try UVLoop()
            loop.checkIsolated()
        }
        let message = String(decoding: neverRan.standardErrorContent, as: UTF8.self)
        #expect(message.contains("UVLoop.checkIsolated(): UVLoop 0x"))
        #expect(message.contains("never ran, so no thread is isolated to it"))
    }

    /// The thread that ran the loop is no longer isolated to it once
    /// `run()` returned: `assumeIsolated` traps there, through the runtime,
    /// with the loop's message.
    @Test func assumeIsolatedAfterRunReturnedTraps() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let loop = try UVLoop()
            let counter = LoopCounter(loop: loop)
            loop.schedule { _ = counter.assumeIsolated { $0.value } } // fine: the loop runs it
            loop.run()
            _ = counter.assumeIsolated { $0.value }
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("UVLoop.checkIsolated(): UVLoop 0x"))
        #expect(message.contains("is not running on this thread"))
    }

    /// On another thread than the loop's, `assumeIsolated` traps naming
    /// both threads.
    @Test func assumeIsolatedOnAnotherThreadNamesTheLoop() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try assumeIsolatedOnAnotherThread()
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("UVLoop.checkIsolated(): the calling thread"))
        #expect(message.contains("is not UVLoop 0x"))
    }

    /// The isolation queries say yes on the loop thread only while the loop
    /// serves it: inside `run()`, not before it nor after it returned.
    @Test func isolationQueriesFollowTheRunningLoop() throws {
        guard #available(macOS 26.0, *) else { return }
        withLoop { loop in
            #expect(loop.isIsolatingCurrentContext() == nil) // never ran
            let inside = Shared<Bool?>(nil)
            loop.schedule {
                let answer = loop.isIsolatingCurrentContext()
                inside.withLock { $0 = answer }
                loop.checkIsolated() // passes
            }
            loop.run()
            #expect(inside.value == true)
            #expect(loop.isInLoop) // still the loop's thread
            #expect(loop.isIsolatingCurrentContext() == nil) // but not running
        }
    }

    @Test func aLoopClosedWithJobsPendingRunsThem() {
        let log = Shared<[String]>([])
        withLoop { loop in
            Task(executorPreference: loop) {
                log.append("job \(loop.isInLoop)")
                // Enqueued while close() runs the pending jobs: runs too.
                await Task.yield()
                log.append("after yield")
            }
            loop.schedule { log.append("action") } // discarded by close()
            // withLoop closes the loop (uv_loop_close == 0) without running it.
        }
        #expect(log.value == ["job true", "after yield"])
    }

    @Test func enqueueingOnAClosedLoopTraps() async {
        await #expect(processExitsWith: .failure) {
            let loop = try UVLoop()
            try loop.close()
            Task(executorPreference: loop) {}
        }
    }

    @Test func groupHandsOutExecutorsRoundRobin() async throws {
        let group = try UVLoopGroup(numberOfThreads: 2)
        let first = group.nextExecutor()
        let second = group.nextExecutor()
        let third = group.nextExecutor()
        #expect(first !== second)
        #expect(first === third)
        #expect(group.executors.count == 2)
        let counter = LoopCounter(loop: second)
        _ = await counter.increment()
        #expect(await counter.snapshot().offLoop == 0)
        #expect(await Task(executorPreference: group.threads[0].executor) { group.threads[0].loop.isInLoop }.value)
        try group.shutdown()
    }

    // Two tasks on one loop pass a turn back and forth through
    // continuations. Resuming a suspended task enqueues the task itself (a
    // task is its own job), so whatever is allocated per turn is the loop's
    // enqueue. (`Task.yield()` is no probe for this: the runtime allocates a
    // fresh continuation job for every yield, before our executor sees it.)
    @Test(.enabled(if: isOptimizedBuild && AllocationCounter.isCounting, "allocation counts are meaningful only with -c release"))
    func reenqueueingFromTheLoopThreadAllocatesNothingPerJob() {
        withLoop { loop in
            let turns = TurnPassing()
            let mallocs = Shared<Int>(-1)
            Task(executorPreference: loop) {
                for _ in 0..<1_000 { await turns.passTurn() } // warm up
                let before = AllocationCounter.threadTotal
                for _ in 0..<10_000 { await turns.passTurn() }
                let after = AllocationCounter.threadTotal
                mallocs.withLock { $0 = after - before }
                turns.finish()
            }
            Task(executorPreference: loop) {
                for _ in 0..<11_000 { await turns.passTurn() }
                turns.finish()
            }
            loop.run()
            #expect(turns.passes == 2 * 11_000)
            #expect(mallocs.value == 0)
        }
    }
}

/// Reports whether a nonisolated async function runs on `loop`'s thread.
private nonisolated func nonisolatedProbe(_ loop: UVLoop) async -> Bool {
    loop.isInLoop
}

/// Counters shared with jobs on the loop.
private final class JobCounts: Sendable {
    let ran = Atomic<Int>(0)
    let offLoop = Atomic<Int>(0)
}

/// Calls an actor's `assumeIsolated` off its loop's thread (traps).
private func assumeIsolatedOnAnotherThread() throws {
    let background = try UVLoopThread()
    // Once the loop has run an action, it has a thread (the message names it).
    let ran = Shared<Bool>(false)
    background.loop.schedule { ran.withLock { $0 = true } }
    spinUntil { ran.value }
    let counter = LoopCounter(loop: background.loop)
    _ = counter.assumeIsolated { $0.value }
}

/// A turn passed between two tasks on one loop: `passTurn()` parks the
/// caller and resumes the task parked before it. Loop thread only (both
/// tasks prefer the same loop), hence `@unchecked Sendable`.
private final class TurnPassing: @unchecked Sendable {
    private var parked: UnsafeContinuation<Void, Never>?
    private(set) var passes = 0

    func passTurn() async {
        await withUnsafeContinuation { continuation in
            passes += 1
            let other = parked
            parked = continuation
            other?.resume()
        }
    }

    /// Lets the other task, parked by this task's last turn, run to its end.
    func finish() {
        let other = parked
        parked = nil
        other?.resume()
    }
}
