import Benchmark
import BenchmarkSupport
import LoopSupport

/// What collecting task metrics costs (UVURLSessionTaskMetrics, issue 35):
/// the sequential keep-alive workload of Sequential.swift with a session
/// whose `taskMetricsHandler` receives every task's metrics, beside the
/// same session without one (`HTTP.sequential.uvcombine`), in the same
/// run. http.json holds the CPU time per request with metrics to at most
/// 1.05 times without.
func registerMetrics() {
    let configuration = HTTPWorkload.configuration(maxIterations: 40, maxDuration: .seconds(15))
    let requests = HTTPWorkload.sequentialRequests

    Benchmark("HTTP.sequential.uvcombine.metrics", configuration: configuration) { benchmark in
        let runner = SessionRunner(url: BenchServer.shared.smallURL, maximumConnectionsPerHost: 1, collectsMetrics: true)
        runner.run(total: 20, width: 1)
        benchmark.measureExchange(elements: requests) {
            runner.run(total: requests, width: 1)
        }
        runner.close()
        blackHole(runner.accumulator.total)
        blackHole(runner.metricsCount.total)
    }
}
