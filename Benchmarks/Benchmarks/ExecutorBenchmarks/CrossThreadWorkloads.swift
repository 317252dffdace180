import Benchmark
import BenchmarkSupport
import Dispatch
import NIOCore
import NIOPosix
import UVCombine

/// Round trips per iteration of `Executor.crossThreadRoundTrip.*`.
let crossThreadRoundTrips = 10_000

/// Jobs per iteration of `Executor.crossThreadThroughput.*`.
let crossThreadJobs = 100_000

/// Jobs that cross threads, what issue 20 asks for literally ("enqueue→run
/// latency and throughput of jobs from another thread, mallocs per job"):
///
/// - `Executor.crossThreadRoundTrip.*`: an actor on one loop thread awaits a
///   method of an actor on a second loop thread 10,000 times and checks its
///   own isolation after each call: two cross-thread enqueue→run per round trip
///   (there, and back). Time per element is the round trip's latency.
///   `uvloop`: two UVLoopThreads; `nio`: two one-thread NIO loops. No
///   `global`: default actors have no thread of their own, and the runtime
///   switches from one default actor to another inline on the same pool
///   thread (that is `Executor.actorToActor.global`), so nothing would cross.
/// - `Executor.crossThreadThroughput.*`: the benchmark thread creates
///   100,000 tasks isolated to a global actor on the executor under test
///   (`Task { @UVLoopJobs in … }`): the runtime enqueues each task's first
///   job on that executor from the benchmark thread. The iteration ends
///   when the last job has run. Time per element is the cost of one job
///   end to end (its inverse the throughput); mallocs per element include
///   the task itself (the job's storage, one allocation by the runtime) and
///   whatever the executor allocates to queue and run it. `global` is a
///   default global actor: its jobs go onto the actor's own queue and the
///   actor is scheduled on the global pool once per drain, not once per job.
/// - `Executor.crossThreadThroughput.uvloopPreferring`: the same tasks
///   created with `Task(executorPreference: loop)` and no isolation
///   (UVLoop only: NIO's loop is no task executor).
///
/// Malloc counts are the whole process's during the measured region; nothing
/// else runs meanwhile except the loop threads under test (idle when not
/// running these jobs).
func registerCrossThreadWorkloads() {
    let configuration = Workload.configuration(maxIterations: 20, maxDuration: .seconds(10))

    for kind in [ExecutorKind.uvloop, .nio] {
        Benchmark("Executor.crossThreadRoundTrip.\(kind.rawValue)", configuration: configuration) { benchmark in
            let here = ExecutorHost(kind)
            let there = ExecutorHost(kind)
            let caller = CallingActor(executor: here.executor!)
            let callee = CountingActor(executor: there.executor!)
            benchmark.measure(elements: crossThreadRoundTrips) {
                runBlocking {
                    await caller.roundTrips(to: callee, crossThreadRoundTrips)
                }
            }
            here.shutdown()
            there.shutdown()
        }
    }

    Benchmark("Executor.crossThreadThroughput.uvloop", configuration: configuration) { benchmark in
        measureJobs(benchmark, UVLoopJobs.countdown) {
            Task { @UVLoopJobs in UVLoopJobs.countdown.tick() }
        }
    }

    Benchmark("Executor.crossThreadThroughput.uvloopPreferring", configuration: configuration) { benchmark in
        let loop = UVLoopJobs.thread.loop
        measureJobs(benchmark, UVLoopJobs.countdown) {
            Task(executorPreference: loop) { UVLoopJobs.countdown.tick() }
        }
    }

    Benchmark("Executor.crossThreadThroughput.nio", configuration: configuration) { benchmark in
        measureJobs(benchmark, NIOJobs.countdown) {
            Task { @NIOJobs in NIOJobs.countdown.tick() }
        }
    }

    Benchmark("Executor.crossThreadThroughput.global", configuration: configuration) { benchmark in
        measureJobs(benchmark, DefaultJobs.countdown) {
            Task { @DefaultJobs in DefaultJobs.countdown.tick() }
        }
    }
}

/// One measured iteration of a throughput workload: `spawn` creates one task
/// that ticks `countdown`, `crossThreadJobs` times, and the region ends when
/// the last of them has run.
func measureJobs(_ benchmark: Benchmark, _ countdown: Countdown, spawn: () -> Void) {
    benchmark.measure(elements: crossThreadJobs) {
        countdown.start(crossThreadJobs)
        for _ in 0..<crossThreadJobs { spawn() }
        countdown.wait()
    }
}

extension CallingActor {
    /// Awaits `callee.tick()` `count` times, back on this actor after each.
    func roundTrips(to callee: CountingActor, _ count: Int) async {
        for _ in 0..<count {
            await callee.tick()
            // Why: the optimiser drops a hop back to this actor that nothing
            // needs (see `Executor.hop`), which would make a round trip one
            // hop. The check needs the hop, and traps if the task were still
            // on the callee's executor.
            preconditionIsolated()
        }
    }
}

/// Jobs isolated to a UVLoopThread's loop, made on first use and kept for the
/// process: a global actor, so that a task can be created isolated to it from
/// any thread (`Task { @UVLoopJobs in … }`) without capturing anything.
@globalActor
actor UVLoopJobs {
    static let shared = UVLoopJobs()
    static let thread = try! UVLoopThread()
    static let countdown = Countdown()

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        UVLoopJobs.thread.loop.asUnownedSerialExecutor()
    }
}

/// Jobs isolated to a one-thread NIO event loop, like ``UVLoopJobs``.
@globalActor
actor NIOJobs {
    static let shared = NIOJobs()
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    static let executor = group.next().executor
    static let countdown = Countdown()

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        NIOJobs.executor.asUnownedSerialExecutor()
    }
}

/// Jobs isolated to a default actor (the global concurrent executor runs it).
@globalActor
actor DefaultJobs {
    static let shared = DefaultJobs()
    static let countdown = Countdown()
}

/// Counts the jobs of one iteration down and wakes the benchmark thread when
/// the last has run.
///
/// Unchecked `Sendable`: `remaining` is set by the benchmark thread before
/// it enqueues the iteration's jobs (the executor's queue orders that write
/// before them) and then changed only by those jobs, which one serial
/// executor runs one at a time. A lock or an atomic would add its own cost
/// to every job measured.
final class Countdown: @unchecked Sendable {
    private var remaining = 0
    private let done = DispatchSemaphore(value: 0)

    /// Expects `count` ticks. Benchmark thread, before the jobs.
    func start(_ count: Int) {
        remaining = count
    }

    /// One job has run. On the executor under test.
    func tick() {
        remaining -= 1
        if remaining == 0 { done.signal() }
    }

    /// Blocks until the last tick.
    func wait() {
        done.wait()
    }
}
