import Benchmark

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What every benchmark executable shares: workload sizes, the metrics and
/// the measured region.
///
/// Each iteration of a benchmark builds its pipeline, then measures only the
/// loop that moves values (or, for subscription cost, the loop that builds
/// and cancels pipelines), then records how many elements that loop handled
/// in the ``elements`` metric. `scripts/bench_report.py` divides the
/// iteration's times and malloc count by it, so every reported figure is per
/// element (per delivered element for fan-out, per pipeline for subscription
/// cost).
///
/// Two times are recorded: the wall clock, and the CPU time of the measuring
/// thread (``threadCPUTime``). On a machine shared with other work the wall
/// clock also counts the time the thread waited for a core (measured here:
/// 1.6 s of wall clock for 0.47 s of CPU with the load at 7 on 2 cores), so
/// comparisons and limits use the CPU time.
public enum Workload {
    /// Values sent per iteration by the chain workloads.
    public static let values = 1_000_000

    /// Deliveries (value × subscriber) per iteration by the fan-out
    /// workloads: `deliveries / n` values reach `n` subscribers each, so
    /// every N does the same amount of work per iteration.
    public static let deliveries = 1_000_000

    /// Subscriber counts of the fan-out workloads.
    public static let fanOutWidths = [1, 8, 64]

    /// Pipelines built and cancelled per iteration by the subscription-cost
    /// workloads.
    public static let pipelines = 10_000

    /// Elements (or pipelines) the measured region of one iteration handled.
    /// Recorded after the measurement stops, so it costs nothing measured.
    public static let elements = BenchmarkMetric.custom("elements", polarity: .prefersLarger, useScalingFactor: false)

    /// CPU time, in nanoseconds, the measuring thread spent in the measured
    /// region.
    public static let threadCPUTime = BenchmarkMetric.custom("threadCPUTime", polarity: .prefersSmaller,
                                                             useScalingFactor: false)

    /// CPU time, in nanoseconds, the whole process (every thread) spent in
    /// the measured region: for workloads whose work runs on other threads
    /// too (a producer thread, an HTTP client's event loop, the local
    /// server).
    public static let processCPUTime = BenchmarkMetric.custom("processCPUTime", polarity: .prefersSmaller,
                                                              useScalingFactor: false)

    /// The calling thread's CPU time in nanoseconds. A system call that
    /// allocates nothing; read once before and once after the measured loop.
    @inlinable
    public static func threadCPUNanoseconds() -> Int {
        cpuNanoseconds(CLOCK_THREAD_CPUTIME_ID)
    }

    /// The process's CPU time (all threads) in nanoseconds.
    @inlinable
    public static func processCPUNanoseconds() -> Int {
        cpuNanoseconds(CLOCK_PROCESS_CPUTIME_ID)
    }

    /// The CPU time of `clock` (a thread's or the process's) in
    /// nanoseconds; allocates nothing.
    @inlinable
    public static func cpuNanoseconds(_ clock: clockid_t) -> Int {
        var now = timespec()
        clock_gettime(clock, &now)
        return Int(now.tv_sec) * 1_000_000_000 + Int(now.tv_nsec)
    }

    /// Wall clock, malloc count and our own two metrics: package-benchmark's
    /// `.cpuTotal` would add 16 mallocs to every iteration. Nanoseconds, so
    /// per-element figures keep their precision; counts are plain counts.
    public static var configuration: Benchmark.Configuration {
        Benchmark.Configuration(
            metrics: [.wallClock, .mallocCountTotal, threadCPUTime, processCPUTime, elements],
            timeUnits: .nanoseconds,
            units: [.mallocCountTotal: .count, threadCPUTime: .count, processCPUTime: .count, elements: .count],
            warmupIterations: 2,
            maxDuration: .seconds(3),
            maxIterations: 25
        )
    }

    /// The same metrics with another iteration budget: for workloads whose
    /// iterations take long (100,000 timers, HTTP), or whose medians need
    /// more iterations to settle on a shared machine.
    ///
    /// ```swift
    /// Benchmark("Loop.timers", configuration: Workload.configuration(maxIterations: 10, maxDuration: .seconds(60))) { … }
    /// ```
    public static func configuration(warmupIterations: Int = 1, maxIterations: Int,
                                     maxDuration: Duration) -> Benchmark.Configuration
    {
        var configuration = Self.configuration
        configuration.warmupIterations = warmupIterations
        configuration.maxIterations = maxIterations
        configuration.maxDuration = maxDuration
        return configuration
    }
}

extension Benchmark {
    /// Measures `body` alone (wall clock, mallocs, the thread's and the
    /// process's CPU time) and
    /// records that it handled `elements` elements. Call it after building the pipeline, and tear the pipeline
    /// down after it returns.
    ///
    /// ```swift
    /// Benchmark("Chain.subject.sink") { benchmark in
    ///     let subject = PassthroughSubject<Int, Never>()
    ///     let c = subject.sink { blackHole($0) }
    ///     benchmark.measure(elements: Workload.values) {
    ///         for i in 0..<Workload.values { subject.send(i) }
    ///     }
    ///     c.cancel()
    /// }
    /// ```
    @inlinable @inline(__always)
    public func measure(elements: Int, _ body: () -> Void) {
        startMeasurement()
        let processStart = Workload.processCPUNanoseconds()
        let cpuStart = Workload.threadCPUNanoseconds()
        body()
        let cpuEnd = Workload.threadCPUNanoseconds()
        let processEnd = Workload.processCPUNanoseconds()
        stopMeasurement()
        measurement(Workload.threadCPUTime, cpuEnd - cpuStart)
        measurement(Workload.processCPUTime, processEnd - processStart)
        measurement(Workload.elements, elements)
    }
}

/// Where sinks put what they receive, so that the optimiser cannot drop the
/// work, at the least cost a closure can have: one add through a pointer.
///
/// Not a captured `var`: each access to a captured variable is checked for
/// exclusivity at run time, which measured ~12 ns per value here, a constant
/// that would blur the differences between the libraries. Capturing this
/// object (one reference) allocates no closure context either, which keeps
/// per-pipeline malloc counts about the library.
///
/// ```swift
/// let accumulator = Accumulator()
/// let c = subject.sink { accumulator.add($0) }
/// ```
public final class Accumulator {
    /// The sum's memory, for receivers that take a context pointer.
    public let storage: UnsafeMutablePointer<Int>

    /// An accumulator at zero.
    public init() {
        storage = .allocate(capacity: 1)
        storage.initialize(to: 0)
    }

    deinit {
        storage.deallocate()
    }

    /// Adds `value`, wrapping on overflow.
    @inlinable @inline(__always)
    public func add(_ value: Int) {
        storage.pointee &+= value
    }

    /// The sum so far.
    public var total: Int { storage.pointee }
}
