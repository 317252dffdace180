import AsyncHTTPClientSupport
import Benchmark
import BenchmarkSupport
import Foundation
import HTTP2Support
import LoopSupport
import UVCombine

// HTTP/2 against one nginx in its own process (issue 33, "Benchmarks"):
// 100 requests in flight over one HTTP/2 connection beside 64 in flight
// over 64 HTTP/1.1 connections, UVURLSession with the spelling users write
// (`session.dataTaskPublisher(for: url).sink { … }` per request) beside
// libcurl's multi interface (Sources/CCurlMulti, on the measuring thread)
// and AsyncHTTPClient 1.37 (on its own event-loop thread: compare it by the
// process's CPU time). The 100-byte file of NginxBenchmarks. Each
// iteration runs 3,000 HTTP/2 requests (3,200 HTTP/1.1 ones) after
// unmeasured ones that opened the connections and checked the protocol.
// Without nginx or openssl, nothing is registered.
//
// Workloads (H2.<listener>.<shape>.<client>):
//   h2c    HTTP/2 with prior knowledge on cleartext (libcurl only from 8.0:
//          7.88.1 fails on the reused connection, curl issue 10634)
//   tls    TLS, ALPN h2
//   http1  HTTP/1.1 on cleartext, 64 connections
//   tlsHTTP1  HTTP/1.1 over TLS, 64 connections
// `libcurl` reuses its easy handles; `libcurl.freshHandles` makes one per
// transfer, as `curl --parallel` does.

/// The suite package-benchmark runs.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = Workload.configuration
    guard let nginx = H2NginxServer.shared else { return }
    registerHTTP2(nginx)
    registerHTTP1(nginx)
}

/// 30 iterations or 10 seconds per workload.
private func h2Configuration() -> Benchmark.Configuration {
    Workload.configuration(maxIterations: 30, maxDuration: .seconds(10))
}

/// The HTTP/2 workloads: 100 streams on one connection.
func registerHTTP2(_ nginx: H2NginxServer) {
    let streams = H2Workload.streams
    let requests = H2Workload.requests

    Benchmark("H2.h2c.concurrent100.uvcombine", configuration: h2Configuration()) { benchmark in
        let runner = SessionRunner(url: nginx.url(.h2c), maximumConnectionsPerHost: 1, publisherPerRequest: true,
                                   httpVersion: .http2PriorKnowledge)
        precondition(runner.negotiatedProtocol() == "h2", "not HTTP/2")
        runner.run(total: 2 * streams, width: streams)
        benchmark.measure(elements: requests) {
            runner.run(total: requests, width: streams)
        }
        runner.close()
    }

    if H2Workload.libcurlMultiplexesPriorKnowledge {
        Benchmark("H2.h2c.concurrent100.libcurl", configuration: h2Configuration()) { benchmark in
            let curl = CurlMultiRunner(url: nginx.urlString(.h2c), version: .priorKnowledge, width: streams)
            curl.run(total: 2 * streams)
            precondition(curl.lastProtocol == "h2" && curl.connections == 1, "libcurl: not one HTTP/2 connection")
            benchmark.measure(elements: requests) {
                curl.run(total: requests)
            }
            curl.close()
        }
    } else {
        FileHandle.standardError.write(Data("HTTP2Benchmarks: libcurl before 8.0 cannot multiplex h2c with prior knowledge (curl issue 10634); H2.h2c.concurrent100.libcurl skipped\n".utf8))
    }

    Benchmark("H2.tls.concurrent100.uvcombine", configuration: h2Configuration()) { benchmark in
        let runner = SessionRunner(url: nginx.url(.tls), maximumConnectionsPerHost: 1, publisherPerRequest: true,
                                   httpVersion: .automatic, trustRoot: nginx.certificatePath)
        precondition(runner.negotiatedProtocol() == "h2", "ALPN did not pick h2")
        runner.run(total: 2 * streams, width: streams)
        benchmark.measure(elements: requests) {
            runner.run(total: requests, width: streams)
        }
        runner.close()
    }

    for (name, fresh) in [("H2.tls.concurrent100.libcurl", false), ("H2.tls.concurrent100.libcurl.freshHandles", true)] {
        Benchmark(name, configuration: h2Configuration()) { benchmark in
            let curl = CurlMultiRunner(url: nginx.urlString(.tls), version: .tls, caFile: nginx.certificatePath,
                                       width: streams, freshHandles: fresh)
            curl.run(total: 2 * streams)
            precondition(curl.lastProtocol == "h2" && curl.connections == 1, "libcurl: not one HTTP/2 connection")
            benchmark.measure(elements: requests) {
                curl.run(total: requests)
            }
            curl.close()
        }
    }

    Benchmark("H2.tls.concurrent100.asyncHTTPClient", configuration: h2Configuration()) { benchmark in
        let runner = AsyncClientRunner(url: nginx.urlString(.tls), connections: 1, trustRoot: nginx.certificatePath,
                                       requestPerTask: true)
        runner.run(total: 2 * streams, width: streams)
        precondition(runner.lastMajorVersion == 2, "AsyncHTTPClient: not HTTP/2")
        benchmark.measure(elements: requests) {
            runner.run(total: requests, width: streams)
        }
        runner.close()
    }
}

/// The HTTP/1.1 workloads: 64 connections, one request in flight on each.
func registerHTTP1(_ nginx: H2NginxServer) {
    let width = H2Workload.connections
    let requests = H2Workload.http1Requests

    for (listener, prefix) in [(H2NginxServer.Listener.http1, "H2.http1"), (.tls, "H2.tlsHTTP1")] {
        let trustRoot = listener == .tls ? nginx.certificatePath : nil
        Benchmark("\(prefix).concurrent64.uvcombine", configuration: h2Configuration()) { benchmark in
            let runner = SessionRunner(url: nginx.url(listener), maximumConnectionsPerHost: width,
                                       publisherPerRequest: true, httpVersion: .http1_1, trustRoot: trustRoot)
            precondition(runner.negotiatedProtocol() == "http/1.1", "not HTTP/1.1")
            runner.run(total: 2 * width, width: width)
            benchmark.measure(elements: requests) {
                runner.run(total: requests, width: width)
            }
            runner.close()
        }

        Benchmark("\(prefix).concurrent64.libcurl", configuration: h2Configuration()) { benchmark in
            let curl = CurlMultiRunner(url: nginx.urlString(listener), version: .http1_1, caFile: trustRoot, width: width)
            curl.run(total: 2 * width)
            precondition(curl.lastProtocol == "http/1.1", "libcurl: not HTTP/1.1")
            benchmark.measure(elements: requests) {
                curl.run(total: requests)
            }
            curl.close()
        }
    }
}
