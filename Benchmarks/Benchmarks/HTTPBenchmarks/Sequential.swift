import AsyncHTTPClientSupport
import Benchmark
import BenchmarkSupport
import LoopSupport

/// Sequential keep-alive GETs of a 100-byte body: each request is sent when
/// the previous response arrived, on one reused connection. 2,000 per
/// iteration after 20 unmeasured ones (which open the connection); reported
/// per request.
func registerSequential() {
    let configuration = HTTPWorkload.configuration(maxIterations: 40, maxDuration: .seconds(15))
    let requests = HTTPWorkload.sequentialRequests

    Benchmark("HTTP.sequential.uvcombine", configuration: configuration) { benchmark in
        let runner = SessionRunner(url: BenchServer.shared.smallURL, maximumConnectionsPerHost: 1)
        runner.run(total: 20, width: 1)
        benchmark.measureExchange(elements: requests) {
            runner.run(total: requests, width: 1)
        }
        runner.close()
        blackHole(runner.accumulator.total)
    }

    Benchmark("HTTP.sequential.asyncHTTPClient", configuration: configuration) { benchmark in
        let runner = AsyncClientRunner(url: BenchServer.shared.smallURL.absoluteString, connections: 1)
        runner.run(total: 20, width: 1)
        benchmark.measureExchange(elements: requests) {
            runner.run(total: requests, width: 1)
        }
        runner.close()
        blackHole(runner.accumulator.total)
    }

    Benchmark("HTTP.sequential.libuv", configuration: configuration) { benchmark in
        let server = BenchServer.shared
        let client = BareClient(port: server.smallPort,
                                request: BenchServer.requestBytes(path: "/small", port: server.smallPort),
                                responseLength: server.smallResponse.count)
        client.run(requests: 20)
        benchmark.measureExchange(elements: requests) {
            client.run(requests: requests)
        }
        client.close()
    }
}
