import Synchronization
import Testing
import UVCombineCore
import UVCombineLoop

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
