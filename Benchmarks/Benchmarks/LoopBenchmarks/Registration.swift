import Benchmark
import BenchmarkSupport

// Workloads on the libuv loop, which OpenCombine has no counterpart for:
// timer publishers (100,000 of them, and the cost of one tick) beside bare
// uv_timers, and values moved across threads by `receive(on: loop)`.
//
// Every iteration makes its own loop, runs it on the benchmark's thread and
// closes it there, so nothing depends on which thread package-benchmark runs
// the next iteration on.

/// The suite package-benchmark runs.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = Workload.configuration
    registerTimers()
    registerTicks()
    registerReceiveOn()
}
