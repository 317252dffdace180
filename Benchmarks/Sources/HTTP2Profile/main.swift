import AsyncHTTPClientSupport
import Foundation
import HTTP2Support
import LoopSupport
import UVCombine

// Runs one HTTP/2 workload alone, for profiling (issue 33): under
// `valgrind --tool=callgrind --toggle-collect='*measuredRegion*'` the
// instruction counts cover the measured requests only.
//
//   HTTP2Profile WORKLOAD [REQUESTS]
//   WORKLOAD: h2c | tls | tlsLibcurl | tlsLibcurlFresh | tlsAsyncHTTPClient |
//             http1 | http1Libcurl | tlsHTTP1 | tlsHTTP1Libcurl | h2cLibcurl (libcurl 8+)
//
// Prints the calling thread's and the process's CPU time per request.

let (workload, requested) = ProfileHarness.arguments(usage: "HTTP2Profile WORKLOAD [REQUESTS]")
guard let nginx = H2NginxServer.shared else { exit(0) }

let http2 = workload.hasPrefix("h2c") || workload.hasPrefix("tls") && !workload.hasPrefix("tlsHTTP1")
let width = http2 ? H2Workload.streams : H2Workload.connections
let requests = requested ?? (http2 ? H2Workload.requests : H2Workload.http1Requests)
var measured = ProfileHarness.Measurement()

switch workload {
case "h2c", "tls", "http1", "tlsHTTP1":
    let listener: H2NginxServer.Listener = workload == "h2c" ? .h2c : workload == "http1" ? .http1 : .tls
    let version: HTTPVersionPreference = workload == "h2c" ? .http2PriorKnowledge : http2 ? .automatic : .http1_1
    let runner = SessionRunner(url: nginx.url(listener), maximumConnectionsPerHost: http2 ? 1 : width,
                               publisherPerRequest: true, httpVersion: version,
                               trustRoot: listener == .tls ? nginx.certificatePath : nil)
    print("protocol:", runner.negotiatedProtocol() ?? "?")
    runner.run(total: 2 * width, width: width)
    measured = ProfileHarness.measuredRegion { runner.run(total: requests, width: width) }
    runner.close()
case "tlsLibcurl", "tlsLibcurlFresh", "http1Libcurl", "tlsHTTP1Libcurl", "h2cLibcurl":
    let listener: H2NginxServer.Listener = workload.hasPrefix("h2c") ? .h2c : workload.hasPrefix("http1") ? .http1 : .tls
    let version: CurlMultiRunner.Version = workload.hasPrefix("h2c") ? .priorKnowledge : http2 ? .tls : .http1_1
    let curl = CurlMultiRunner(url: nginx.urlString(listener), version: version,
                               caFile: listener == .tls ? nginx.certificatePath : nil, width: width,
                               freshHandles: workload == "tlsLibcurlFresh")
    curl.run(total: 2 * width)
    print("protocol:", curl.lastProtocol, "connections:", curl.connections)
    measured = ProfileHarness.measuredRegion { curl.run(total: requests) }
    curl.close()
case "tlsAsyncHTTPClient":
    let runner = AsyncClientRunner(url: nginx.urlString(.tls), connections: 1, trustRoot: nginx.certificatePath,
                                   requestPerTask: true)
    runner.run(total: 2 * width, width: width)
    print("protocol: HTTP/", runner.lastMajorVersion ?? 0)
    measured = ProfileHarness.measuredRegion { runner.run(total: requests, width: width) }
    runner.close()
default:
    print("unknown workload \(workload)")
    exit(2)
}
print("\(workload): \(requests) requests, thread CPU \(measured.thread / requests) ns/request, process CPU \(measured.process / requests) ns/request")
nginx.stop()
