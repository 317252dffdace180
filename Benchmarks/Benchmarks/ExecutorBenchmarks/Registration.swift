import Benchmark
import BenchmarkSupport

/// Swift jobs on a UVLoop beside NIO's event loop and the default global
/// executor (issue 20): see ExecutorWorkloads.swift and, for jobs that cross
/// threads, CrossThreadWorkloads.swift.
let benchmarks: @Sendable () -> Void = {
    registerExecutorWorkloads()
    registerCrossThreadWorkloads()
}
