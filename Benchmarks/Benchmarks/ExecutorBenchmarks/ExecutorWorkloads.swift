import Benchmark
import BenchmarkSupport
import Dispatch
import NIOCore
import NIOPosix
import UVCombine

/// Jobs per iteration.
let executorJobs = 100_000

/// Runs Swift jobs on three executors, each measured the same way:
///
/// - `Executor.turns.*`: two tasks isolated to one actor pass a turn back
///   and forth through continuations. The runtime resumes a continuation
///   on the generic executor, and the task then hops back to its actor: for
///   an actor on a loop that is two thread hops per turn (the global pool
///   and back), a cross-thread enqueue→run on each side.
/// - `Executor.hop.*`: a task on the global executor awaits an actor method
///   100,000 times. Only the first call hops threads: the optimiser drops
///   the hop back to the generic executor between iterations (nothing in
///   between needs it), so the task stays on the actor's executor and each
///   later call is a switch from that executor to itself (what an awaited
///   call costs when it need not leave the executor).
/// - `Executor.turnsPreferring.uvloop`: the turns with both tasks
///   preferring the loop as their task executor, so that a resumed task
///   comes back to the loop directly (UVLoop only: NIO's loop is no task
///   executor, and the default actor has none to prefer).
/// - `Executor.actorToActor.*`: a task isolated to one actor awaits a method
///   of a second actor on the same executor 100,000 times: a switch
///   between two isolations on one thread, which the runtime can make
///   without a queue when the executor runs jobs in the right context.
///
/// Executors: `uvloop` (a UVLoopThread's loop), `nio` (a one-thread
/// MultiThreadedEventLoopGroup's loop) and `global` (a default actor, on
/// the global concurrent executor). Malloc counts are process-wide, so the
/// turns include the global executor's allocations.
func registerExecutorWorkloads() {
    let configuration = Workload.configuration(maxIterations: 20, maxDuration: .seconds(10))

    for kind in ExecutorKind.allCases {
        Benchmark("Executor.turns.\(kind.rawValue)", configuration: configuration) { benchmark in
            let host = ExecutorHost(kind)
            let turns: any TurnPassing = host.executor.map { TurnActor(executor: $0) } ?? DefaultTurnActor()
            benchmark.measure(elements: executorJobs) {
                runBlocking {
                    async let first: Void = turns.passTurns(executorJobs / 2)
                    async let second: Void = turns.passTurns(executorJobs / 2)
                    _ = await (first, second)
                }
            }
            host.shutdown()
        }

        if kind == .uvloop {
            Benchmark("Executor.turnsPreferring.\(kind.rawValue)", configuration: configuration) { benchmark in
                let host = ExecutorHost(kind)
                let loop = host.loop!
                let turns = TurnActor(executor: loop)
                benchmark.measure(elements: executorJobs) {
                    runBlocking {
                        async let first: Void = Task(executorPreference: loop) { await turns.passTurns(executorJobs / 2) }.value
                        async let second: Void = Task(executorPreference: loop) { await turns.passTurns(executorJobs / 2) }.value
                        _ = await (first, second)
                    }
                }
                host.shutdown()
            }
        }

        Benchmark("Executor.actorToActor.\(kind.rawValue)", configuration: configuration) { benchmark in
            let host = ExecutorHost(kind)
            let caller: any Calling = host.executor.map { CallingActor(executor: $0) } ?? DefaultCallingActor()
            let callee: any Ticking = host.executor.map { CountingActor(executor: $0) } ?? DefaultCountingActor()
            benchmark.measure(elements: executorJobs) {
                runBlocking {
                    await caller.call(callee, times: executorJobs)
                }
            }
            host.shutdown()
        }

        Benchmark("Executor.hop.\(kind.rawValue)", configuration: configuration) { benchmark in
            let host = ExecutorHost(kind)
            let counter: any Ticking = host.executor.map { CountingActor(executor: $0) } ?? DefaultCountingActor()
            benchmark.measure(elements: executorJobs) {
                runBlocking {
                    for _ in 0..<executorJobs { await counter.tick() }
                }
            }
            host.shutdown()
        }
    }
}

enum ExecutorKind: String, CaseIterable {
    case uvloop
    case nio
    case global
}

/// The executor under test and whatever runs it.
final class ExecutorHost {
    let executor: (any SerialExecutor)?
    private let loopThread: UVLoopThread?
    /// The loop, for `uvloop`.
    var loop: UVLoop? { loopThread?.loop }
    private let group: MultiThreadedEventLoopGroup?

    init(_ kind: ExecutorKind) {
        switch kind {
        case .uvloop:
            let thread = try! UVLoopThread()
            loopThread = thread
            group = nil
            executor = thread.loop
        case .nio:
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            self.group = group
            loopThread = nil
            executor = group.next().executor
        case .global:
            loopThread = nil
            group = nil
            executor = nil
        }
    }

    func shutdown() {
        try? loopThread?.shutdown()
        try? group?.syncShutdownGracefully()
    }
}

/// Two tasks passing a turn through continuations, isolated to one actor.
protocol TurnPassing: Actor {
    var turns: Turns { get set }
}

extension TurnPassing {
    /// Parks the caller and resumes the task parked before it, `count`
    /// times; then lets the other task finish.
    func passTurns(_ count: Int) async {
        for _ in 0..<count {
            await withUnsafeContinuation { continuation in
                let other = turns.parked
                turns.parked = continuation
                other?.resume()
            }
        }
        let other = turns.parked
        turns.parked = nil
        other?.resume()
    }
}

/// An actor method that does almost nothing.
protocol Ticking: Actor {
    func tick()
}

/// The turn-passing state, kept by either actor below.
struct Turns {
    var parked: UnsafeContinuation<Void, Never>?
}

/// On the given executor.
actor TurnActor: TurnPassing {
    private let executor: any SerialExecutor
    var turns = Turns()

    init(executor: any SerialExecutor) {
        self.executor = executor
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }
}

/// A default actor (the global concurrent executor runs it).
actor DefaultTurnActor: TurnPassing {
    var turns = Turns()
}

/// On the given executor.
actor CountingActor: Ticking {
    private let executor: any SerialExecutor
    private var count = 0

    init(executor: any SerialExecutor) {
        self.executor = executor
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    func tick() {
        count &+= 1
    }
}

/// A default actor.
actor DefaultCountingActor: Ticking {
    private var count = 0

    func tick() {
        count &+= 1
    }
}

/// An actor that awaits another actor's method.
protocol Calling: Actor {
    func call(_ callee: any Ticking, times: Int) async
}

extension Calling {
    func call(_ callee: any Ticking, times: Int) async {
        for _ in 0..<times { await callee.tick() }
    }
}

/// On the given executor.
actor CallingActor: Calling {
    private let executor: any SerialExecutor

    init(executor: any SerialExecutor) {
        self.executor = executor
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }
}

/// A default actor.
actor DefaultCallingActor: Calling {}

/// Runs `body` in a task and blocks the calling (benchmark) thread until it
/// is done.
func runBlocking(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await body()
        done.signal()
    }
    done.wait()
}
