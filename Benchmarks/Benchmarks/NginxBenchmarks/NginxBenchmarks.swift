import Benchmark
import BenchmarkSupport
import Foundation
import LoopSupport

// HTTP/1.1 on loopback against a real nginx in its own process (one
// worker, keep-alive; NginxServer): UVURLSession beside a bare libuv
// client in the same run (issue 17, "Cost per request"). Client CPU is the
// measuring thread's CPU time (`threadCPUTime`, from
// clock_gettime(CLOCK_THREAD_CPUTIME_ID)): both clients run their loop on
// it, and nginx's CPU is in another process. Throughput is from the wall
// clock. Without nginx installed, nothing is registered.

/// The suite package-benchmark runs.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = Workload.configuration
    guard let nginx = NginxServer.shared else { return }
    registerSequential(nginx)
    registerConcurrent(nginx)
    registerBody(nginx)
}

/// Sizes of the nginx workloads.
enum NginxWorkload {
    /// Sequential keep-alive GETs per iteration.
    static let sequentialRequests = 2_000
    /// Requests in flight at once in the concurrent workloads.
    static let width = 64
    /// Requests per iteration of the concurrent workloads.
    static let concurrentRequests = 64 * 50
    /// Different URLs (query strings) the distinct-URL workload cycles
    /// through.
    static let distinctURLs = 1_000

    static func configuration(maxIterations: Int, maxDuration: Duration) -> Benchmark.Configuration {
        Workload.configuration(maxIterations: maxIterations, maxDuration: maxDuration)
    }
}

/// Sequential keep-alive GETs of the 100-byte file, each sent when the
/// previous response arrived, on one reused connection; 20 unmeasured
/// first (they open the connection). Reported per request.
///
/// - `uvcombine`: one `dataTaskPublisher` made once, `sink` per request,
///   closures capturing one object (SessionRunner).
/// - `uvcombine.inPlace`: `session.dataTaskPublisher(for: url).sink { … }`
///   written out for every request, as in the malloc count.
/// - `uvcombine.inPlace.distinctURLs`: the same spelling cycling through
///   1,000 URLs that differ in their query string, so the session's
///   one-entry `TaskRequestMemo` misses every time: each request parses
///   its URL, makes its `HTTPRequest` and prepares its head (the memo's
///   honest counterpart).
/// - `libuv`: the bare client (BareClient): counts bytes, parses nothing.
func registerSequential(_ nginx: NginxServer) {
    let configuration = NginxWorkload.configuration(maxIterations: 40, maxDuration: .seconds(15))
    let requests = NginxWorkload.sequentialRequests
    let url = nginx.url(NginxServer.smallPath)

    let workloads = [("Nginx.sequential.uvcombine", false, 0), ("Nginx.sequential.uvcombine.inPlace", true, 0),
                     ("Nginx.sequential.uvcombine.inPlace.distinctURLs", true, NginxWorkload.distinctURLs)]
    for (name, inPlace, distinctURLs) in workloads {
        Benchmark(name, configuration: configuration) { benchmark in
            let runner = SessionRunner(url: url, maximumConnectionsPerHost: 1, publisherPerRequest: inPlace,
                                       distinctURLs: distinctURLs)
            runner.run(total: 20, width: 1)
            benchmark.measure(elements: requests) {
                runner.run(total: requests, width: 1)
            }
            precondition(runner.accumulator.total == (requests + 20) * NginxServer.smallBodyLength, "short bodies")
            runner.close()
        }
    }

    Benchmark("Nginx.sequential.libuv", configuration: configuration) { benchmark in
        let client = BareClient(port: nginx.port, request: nginx.requestBytes(NginxServer.smallPath),
                                responseLength: nginx.responseLength(NginxServer.smallPath))
        client.run(requests: 20)
        benchmark.measure(elements: requests) {
            client.run(requests: requests)
        }
        client.close()
    }
}

/// 64 requests in flight at once (the 100-byte file) on 64 keep-alive
/// connections, each completion starting the next, 3,200 per iteration,
/// after 128 unmeasured requests that open the connections. Reported per
/// request; the rate is from the wall clock. `uvcombine` and
/// `uvcombine.inPlace` as in the sequential workloads.
func registerConcurrent(_ nginx: NginxServer) {
    let configuration = NginxWorkload.configuration(maxIterations: 40, maxDuration: .seconds(15))
    let requests = NginxWorkload.concurrentRequests
    let width = NginxWorkload.width
    let url = nginx.url(NginxServer.smallPath)

    for (name, inPlace) in [("Nginx.concurrent64.uvcombine", false), ("Nginx.concurrent64.uvcombine.inPlace", true)] {
        Benchmark(name, configuration: configuration) { benchmark in
            let runner = SessionRunner(url: url, maximumConnectionsPerHost: width, publisherPerRequest: inPlace)
            runner.run(total: 2 * width, width: width)
            benchmark.measure(elements: requests) {
                runner.run(total: requests, width: width)
            }
            runner.close()
        }
    }

    Benchmark("Nginx.concurrent64.libuv", configuration: configuration) { benchmark in
        let client = BareClient(port: nginx.port, request: nginx.requestBytes(NginxServer.smallPath),
                                responseLength: nginx.responseLength(NginxServer.smallPath), connections: width)
        client.run(requests: 2 * width)
        benchmark.measure(elements: requests) {
            client.run(requests: requests)
        }
        client.close()
    }
}

/// One GET of the 64 MiB file per iteration, on a connection opened by an
/// unmeasured request first. `elements` is the body's bytes, so the report
/// gives MiB/s; mallocs are per body (one per iteration).
///
/// - `uvcombine.dataTask`: `dataTaskPublisher`, the body collected into
///   one `Data`.
/// - `uvcombine.bytes`: `bytesPublisher`, the parts counted and dropped.
/// - `libuv`: the bare client's read loop (one 64 KiB buffer).
func registerBody(_ nginx: NginxServer) {
    let configuration = NginxWorkload.configuration(maxIterations: 25, maxDuration: .seconds(15))
    let length = NginxServer.bigBodyLength
    let url = nginx.url(NginxServer.bigPath)

    Benchmark("Nginx.body64MiB.uvcombine.dataTask", configuration: configuration) { benchmark in
        let runner = SessionRunner(url: url, maximumConnectionsPerHost: 1)
        runner.run(total: 1, width: 1)
        let before = runner.accumulator.total
        benchmark.measure(elements: length) {
            runner.run(total: 1, width: 1)
        }
        precondition(runner.accumulator.total - before == length, "short body")
        runner.close()
    }

    Benchmark("Nginx.body64MiB.uvcombine.bytes", configuration: configuration) { benchmark in
        let runner = StreamRunner(url: url)
        _ = runner.run()
        var bytes = 0
        benchmark.measure(elements: length) {
            bytes = runner.run()
        }
        precondition(bytes == length, "short body")
        runner.close()
    }

    Benchmark("Nginx.body64MiB.libuv", configuration: configuration) { benchmark in
        let client = BareClient(port: nginx.port, request: nginx.requestBytes(NginxServer.bigPath),
                                responseLength: nginx.responseLength(NginxServer.bigPath))
        client.run(requests: 1)
        benchmark.measure(elements: length) {
            client.run(requests: 1)
        }
        client.close()
    }
}
