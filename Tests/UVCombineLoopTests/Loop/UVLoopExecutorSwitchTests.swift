import Synchronization
import Testing
import UVCombineCore
import UVCombineLoop
import UVCombineTesting

/// An actor on a loop that logs what it runs.
private actor LoopRecorder {
    let loop: UVLoop
    let log: Shared<[String]>
    let name: String

    init(_ name: String, loop: UVLoop, log: Shared<[String]>) {
        self.name = name
        self.loop = loop
        self.log = log
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    /// Schedules an action, then awaits `other` on the same loop.
    func callOther(_ other: LoopRecorder) async {
        loop.schedule { [log] in log.append("action") }
        await other.step()
        log.append("back in \(name) \(loop.isInLoop)")
    }

    func step() {
        log.append("\(name) \(loop.isInLoop)")
    }
}

/// A nonisolated async function: it runs on the generic executor, or on the
/// task's preferred executor.
@inline(never)
private nonisolated func nonisolatedStep(_ log: Shared<[String]>, _ loop: UVLoop) async {
    log.append("nonisolated \(loop.isInLoop)")
}

/// Switching between contexts on one loop (two actors on it; an actor and
/// the nonisolated code of a task that prefers the loop) happens at once,
/// as the runtime does it for default actors: no trip through the loop's
/// queue, so an action queued before the switch runs after it.
@Suite("UVLoop executor: switches on one loop")
struct UVLoopExecutorSwitchTests {
    @Test func anActorAwaitsAnotherActorOnTheSameLoopWithoutAQueueTrip() {
        withLoop { loop in
            let log = Shared<[String]>([])
            let first = LoopRecorder("first", loop: loop, log: log)
            let second = LoopRecorder("second", loop: loop, log: log)
            // A task without a preference (the usual caller of an actor).
            Task { await first.callOther(second) }
            spinUntil { loop.hasQueuedWorkForTesting }
            loop.run()
            #expect(log.value == ["second true", "back in first true", "action"])
        }
    }

    @Test func aTaskPreferringTheLoopSwitchesToAnActorOnItWithoutAQueueTrip() {
        withLoop { loop in
            let log = Shared<[String]>([])
            let first = LoopRecorder("first", loop: loop, log: log)
            let second = LoopRecorder("second", loop: loop, log: log)
            Task(executorPreference: loop) { await first.callOther(second) }
            spinUntil { loop.hasQueuedWorkForTesting }
            loop.run()
            #expect(log.value == ["second true", "back in first true", "action"])
        }
    }

    @Test func nonisolatedCodeAndAnActorTakeTurnsWithoutAQueueTrip() {
        withLoop { loop in
            let log = Shared<[String]>([])
            let recorder = LoopRecorder("actor", loop: loop, log: log)
            Task(executorPreference: loop) {
                loop.schedule { log.append("action") }
                await nonisolatedStep(log, loop)
                await recorder.step()
                await nonisolatedStep(log, loop)
                log.append("done \(loop.isInLoop)")
            }
            spinUntil { loop.hasQueuedWorkForTesting }
            loop.run()
            #expect(log.value == ["nonisolated true", "actor true", "nonisolated true", "done true", "action"])
        }
    }

    // Many threads start tasks at once, half of them preferring the loop;
    // each task switches between two actors on the loop and nonisolated
    // code. The actors' state is plain (no lock): a job run off the loop
    // thread, or two at once, is a data race that ThreadSanitizer reports
    // (this suite runs under `swift test --sanitize=thread`).
    @Test func tasksFromManyThreadsSwitchingOnOneLoop() async throws {
        let background = try UVLoopThread()
        let loop = background.loop
        let first = LoopTally(loop: loop)
        let second = LoopTally(loop: loop)
        let threads = (0..<4).map { index in
            TestThread {
                for task in 0..<100 {
                    let body: @Sendable () async -> Void = {
                        await first.relay(to: second)
                        await nonisolatedTally(first)
                    }
                    if (index + task) % 2 == 0 {
                        Task(executorPreference: loop, operation: body)
                    } else {
                        Task(operation: body)
                    }
                }
            }
        }
        for thread in threads { thread.join() }
        while await first.snapshot().count < 800 { await Task.yield() }
        let (firstCount, firstOff) = await first.snapshot()
        let (secondCount, secondOff) = await second.snapshot()
        #expect(firstCount == 800)
        #expect(secondCount == 400)
        #expect(firstOff == 0)
        #expect(secondOff == 0)
        try background.shutdown()
    }

    // A task that switches back and forth without ever suspending would
    // keep the loop thread to itself; after a bounded number of switches
    // the next one goes through the queue, and queued work gets its turn.
    @Test func aTaskThatKeepsSwitchingLetsQueuedWorkRun() {
        withLoop { loop in
            let log = Shared<[String]>([])
            let recorder = LoopRecorder("actor", loop: loop, log: log)
            let actionRan = Shared<Bool>(false)
            let sawAction = Shared<Int>(-1)
            Task(executorPreference: loop) {
                loop.schedule { actionRan.withLock { $0 = true } }
                for round in 0..<1_000 {
                    await nonisolatedStep(log, loop)
                    await recorder.step()
                    if actionRan.value {
                        sawAction.withLock { $0 = round }
                        break
                    }
                }
            }
            spinUntil { loop.hasQueuedWorkForTesting }
            loop.run()
            #expect(sawAction.value >= 0)
            #expect(sawAction.value < 200)
            #expect(!log.value.contains { $0.hasSuffix("false") })
        }
    }
}

/// Counts calls, with no lock: the actor's executor (a loop) is the only
/// protection.
private actor LoopTally {
    let loop: UVLoop
    private var count = 0
    private var offLoop = 0

    init(loop: UVLoop) {
        self.loop = loop
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    func add() {
        if !loop.isInLoop { offLoop += 1 }
        count += 1
    }

    /// Counts, then awaits `other` (on the same loop).
    func relay(to other: LoopTally) async {
        add()
        await other.add()
    }

    func snapshot() -> (count: Int, offLoop: Int) { (count, offLoop) }
}

/// Nonisolated code between two actor calls.
@inline(never)
private nonisolated func nonisolatedTally(_ tally: LoopTally) async {
    await tally.add()
}
