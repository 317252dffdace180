import AsyncHTTPClientSupport
import Benchmark
import BenchmarkSupport
import LoopSupport

/// 64 requests in flight at once (the 100-byte body), each completion
/// starting the next, 3,200 per iteration, with up to 64 keep-alive
/// connections opened by 128 unmeasured requests first; reported per
/// request.
func registerConcurrent() {
    let configuration = HTTPWorkload.configuration(maxIterations: 40, maxDuration: .seconds(15))
    let requests = HTTPWorkload.concurrentRequests
    let width = HTTPWorkload.width

    Benchmark("HTTP.concurrent64.uvcombine", configuration: configuration) { benchmark in
        let runner = SessionRunner(url: BenchServer.shared.smallURL, maximumConnectionsPerHost: width)
        runner.run(total: 2 * width, width: width)
        benchmark.measureExchange(elements: requests) {
            runner.run(total: requests, width: width)
        }
        runner.close()
        blackHole(runner.accumulator.total)
    }

    Benchmark("HTTP.concurrent64.asyncHTTPClient", configuration: configuration) { benchmark in
        let runner = AsyncClientRunner(url: BenchServer.shared.smallURL.absoluteString, connections: width)
        runner.run(total: 2 * width, width: width)
        benchmark.measureExchange(elements: requests) {
            runner.run(total: requests, width: width)
        }
        runner.close()
        blackHole(runner.accumulator.total)
    }
}
