import Benchmark
import BenchmarkSupport

// The workloads on UVCombine. The other library's benchmark target holds this
// same text with only the library's name changed, so both libraries run
// exactly the same code (`scripts/bench_report.py check` verifies it).
// Workloads with no OpenCombine counterpart (the loop, HTTP) get executables
// of their own.

/// The suite package-benchmark runs.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = Workload.configuration
    registerFanOut()
    registerChains()
    registerSubscriptionCost()
    registerPublished()
    registerOperators()
}
