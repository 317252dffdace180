import AsyncHTTPClientSupport
import Benchmark
import BenchmarkSupport
import LoopSupport

/// One GET of a 64 MiB body per iteration, on a connection opened by an
/// unmeasured request first. `elements` is the body's bytes, so the report
/// gives MiB/s; mallocs are per request (one per iteration).
///
/// - `uvcombine.dataTask`: `dataTaskPublisher`, the body collected into one
///   `Data`, as AsyncHTTPClient's `execute` collects it into a `ByteBuffer`.
/// - `uvcombine.bytes`: `bytesPublisher`, the parts counted and dropped as
///   they arrive, like the bare libuv read loop.
func registerBody() {
    let configuration = HTTPWorkload.configuration(maxIterations: 25, maxDuration: .seconds(15))
    let length = BenchServer.bigBodyLength

    Benchmark("HTTP.body64MiB.uvcombine.dataTask", configuration: configuration) { benchmark in
        let runner = SessionRunner(url: BenchServer.shared.bigURL, maximumConnectionsPerHost: 1)
        runner.run(total: 1, width: 1)
        let before = runner.accumulator.total
        benchmark.measureExchange(elements: length) {
            runner.run(total: 1, width: 1)
        }
        precondition(runner.accumulator.total - before == length, "short body")
        runner.close()
    }

    Benchmark("HTTP.body64MiB.uvcombine.bytes", configuration: configuration) { benchmark in
        let runner = StreamRunner(url: BenchServer.shared.bigURL)
        _ = runner.run()
        var bytes = 0
        benchmark.measureExchange(elements: length) {
            bytes = runner.run()
        }
        precondition(bytes == length, "short body")
        runner.close()
    }

    Benchmark("HTTP.body64MiB.asyncHTTPClient", configuration: configuration) { benchmark in
        let runner = AsyncClientRunner(url: BenchServer.shared.bigURL.absoluteString, connections: 1)
        runner.run(total: 1, width: 1)
        let before = runner.accumulator.total
        benchmark.measureExchange(elements: length) {
            runner.run(total: 1, width: 1)
        }
        precondition(runner.accumulator.total - before == length, "short body")
        runner.close()
    }

    Benchmark("HTTP.body64MiB.libuv", configuration: configuration) { benchmark in
        let server = BenchServer.shared
        let client = BareClient(port: server.bigPort,
                                request: BenchServer.requestBytes(path: "/big", port: server.bigPort),
                                responseLength: server.bigHead.count + length)
        client.run(requests: 1)
        benchmark.measureExchange(elements: length) {
            client.run(requests: 1)
        }
        client.close()
    }
}
