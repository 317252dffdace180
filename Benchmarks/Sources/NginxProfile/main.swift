import Foundation
import LoopSupport

// Runs one nginx workload alone, for profiling: under
// `valgrind --tool=callgrind --toggle-collect='*measuredRegion*'` the
// instruction counts cover the measured requests only (a busy machine
// changes times, not instruction counts).
//
//   NginxProfile WORKLOAD [REQUESTS]
//   WORKLOAD: sequential | inPlace | distinctURLs | libuv | concurrent | concurrentInPlace | concurrentLibuv | dataTask | bytes | bodyLibuv
//
// Prints the calling thread's CPU time per request (or per MiB).

let (workload, requested) = ProfileHarness.arguments(usage: "NginxProfile WORKLOAD [REQUESTS]")
let requests = requested ?? 2_000
guard let nginx = NginxServer.shared else { exit(0) }
let small = nginx.url(NginxServer.smallPath)
let big = nginx.url(NginxServer.bigPath)

var measured = ProfileHarness.Measurement()
var unit = "request"
var count = requests
switch workload {
case "sequential", "inPlace", "distinctURLs", "concurrent", "concurrentInPlace", "dataTask":
    let width = workload.hasPrefix("concurrent") ? 64 : 1
    let url = workload == "dataTask" ? big : small
    // distinctURLs: 1,000 query strings cycled, so the session's memo of
    // the last URL's request misses every time.
    let runner = SessionRunner(url: url, maximumConnectionsPerHost: width, publisherPerRequest: workload.hasSuffix("nPlace"),
                               distinctURLs: workload == "distinctURLs" ? 1_000 : 0)
    runner.run(total: 2 * width, width: width)
    if workload == "dataTask" {
        count = max(1, requests / 1000)
        unit = "64 MiB"
    }
    measured = ProfileHarness.measuredRegion { runner.run(total: count, width: width) }
    runner.close()
case "bytes":
    let runner = StreamRunner(url: big)
    _ = runner.run()
    count = max(1, requests / 1000)
    unit = "64 MiB"
    measured = ProfileHarness.measuredRegion { for _ in 0..<count { _ = runner.run() } }
    runner.close()
case "libuv", "concurrentLibuv", "bodyLibuv":
    let width = workload == "concurrentLibuv" ? 64 : 1
    let path = workload == "bodyLibuv" ? NginxServer.bigPath : NginxServer.smallPath
    let client = BareClient(port: nginx.port, request: nginx.requestBytes(path),
                            responseLength: nginx.responseLength(path), connections: width)
    client.run(requests: 2 * width)
    if workload == "bodyLibuv" {
        count = max(1, requests / 1000)
        unit = "64 MiB"
        measured = ProfileHarness.measuredRegion { for _ in 0..<count { client.run(requests: 1) } }
    } else {
        measured = ProfileHarness.measuredRegion { client.run(requests: count) }
    }
    client.close()
default:
    print("unknown workload \(workload)")
    exit(2)
}
print("\(workload): \(count) × \(unit), \(measured.thread / count) ns thread CPU, \(measured.wall / count) ns wall per \(unit)")
