import Benchmark
import BenchmarkSupport

// HTTP/1.1 on loopback against one local keep-alive server (BenchServer, in
// this executable on its own loop thread): UVCombine's UVURLSession beside
// AsyncHTTPClient 1.37 and a bare libuv client, in the same run.

/// The suite package-benchmark runs.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = Workload.configuration
    registerSequential()
    registerConcurrent()
    registerBody()
    registerGzip()
    registerMetrics()
}
