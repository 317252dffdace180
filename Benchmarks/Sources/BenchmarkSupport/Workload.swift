import Benchmark

/// What every benchmark executable shares: workload sizes, the metrics and
/// the measured region.
///
/// Each iteration of a benchmark builds its pipeline, then measures only the
/// loop that moves values (or, for subscription cost, the loop that builds
/// and cancels pipelines), then records how many elements that loop handled
/// in the ``elements`` metric. `scripts/bench_report.py` divides the
/// iteration's wall clock and malloc count by it, so every reported figure is
/// per element (per delivered element for fan-out, per pipeline for
/// subscription cost).
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

    /// Wall clock and malloc count only: `.cpuTotal` would add 16 mallocs to
    /// every iteration. Nanoseconds, so per-element figures keep their
    /// precision; counts are plain counts.
    public static var configuration: Benchmark.Configuration {
        Benchmark.Configuration(
            metrics: [.wallClock, .mallocCountTotal, elements],
            timeUnits: .nanoseconds,
            units: [.mallocCountTotal: .count, elements: .count],
            warmupIterations: 2,
            maxDuration: .seconds(2),
            maxIterations: 25
        )
    }
}

extension Benchmark {
    /// Measures `body` alone and records that it handled `elements`
    /// elements. Call it after building the pipeline, and tear the pipeline
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
        body()
        stopMeasurement()
        measurement(Workload.elements, elements)
    }
}
