import Foundation
import HTTPTypes
import Synchronization
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// Collects the metrics handed to a handler (on the loop thread).
final class MetricsBox: Sendable {
    let all = Mutex<[UVURLSessionTaskMetrics]>([])
    var handler: UVURLSession.MetricsHandler { UVURLSession.MetricsHandler { metrics in self.all.withLock { $0.append(metrics) } } }
    var last: UVURLSessionTaskMetrics? { all.withLock { $0.last } }
    var count: Int { all.withLock { $0.count } }
}

/// The instants of a transaction that happened, in the order they must
/// be (`connect…` and `secure…` only on a fresh connection).
func orderedInstants(_ t: UVURLSessionTaskTransactionMetrics) -> [(String, UVLoop.SchedulerTimeType?)] {
    [("fetchStart", t.fetchStart), ("domainLookupStart", t.domainLookupStart), ("domainLookupEnd", t.domainLookupEnd),
     ("connectStart", t.connectStart), ("connectEnd", t.connectEnd),
     ("secureConnectionStart", t.secureConnectionStart), ("secureConnectionEnd", t.secureConnectionEnd),
     ("requestStart", t.requestStart), ("responseStart", t.responseStart), ("responseEnd", t.responseEnd)]
}

func expectOrdered(_ t: UVURLSessionTaskTransactionMetrics, sourceLocation: SourceLocation = #_sourceLocation) {
    var previous: (String, UVLoop.SchedulerTimeType)?
    for (name, instant) in orderedInstants(t) {
        guard let instant else { continue }
        if let previous {
            #expect(previous.1 <= instant, "\(previous.0) after \(name)", sourceLocation: sourceLocation)
        }
        previous = (name, instant)
    }
    if let start = t.requestStart, let end = t.requestEnd {
        #expect(start <= end, "requestStart after requestEnd", sourceLocation: sourceLocation)
    }
}

@Suite("Task metrics (URLSessionTaskMetrics' shape)")
struct TaskMetricsTests {
    @Test("a same-origin redirect: two transactions, the second on the reused connection; timings ordered; bytes and addresses")
    func redirectOnReusedConnection() throws {
        let body = "metrics!"
        let server = try TestHTTPServer(routes: [
            "/from": TestHTTPServer.Response(status: .found, headerFields: [.location: "/to", .contentLength: "0"]),
            "/to": .text(body),
        ])
        defer { server.shutdown() }
        let box = MetricsBox()
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration()
            configuration.taskMetricsHandler = box.handler
            let session = UVURLSession(loop: loop, configuration: configuration)
            let outcome = fetch(session.dataTaskPublisher(for: server.url("/from")), on: loop)
            #expect(outcome?.text == body)
        }
        #expect(box.count == 1)
        let metrics = try #require(box.last)
        #expect(metrics.redirectCount == 1)
        #expect(metrics.transactionMetrics.count == 2)
        #expect(server.connectionCount == 1)
        let first = metrics.transactionMetrics[0], second = metrics.transactionMetrics[1]
        #expect(first.request.path == "/from" && second.request.path == "/to")
        #expect(first.response?.status.code == 302 && second.response?.status.code == 200)
        #expect(!first.isReusedConnection && second.isReusedConnection)
        #expect(first.connectStart != nil && first.connectEnd != nil && first.domainLookupEnd != nil)
        #expect(second.connectStart == nil && second.domainLookupStart == nil)
        #expect(first.secureConnectionStart == nil, "http: no TLS")
        for transaction in metrics.transactionMetrics {
            expectOrdered(transaction)
            #expect(transaction.networkProtocolName == "http/1.1")
            #expect(transaction.remoteAddress == "127.0.0.1")
            #expect(transaction.remotePort == server.port)
            #expect(transaction.localAddress == "127.0.0.1")
            #expect((transaction.localPort ?? 0) > 0)
            #expect(transaction.countOfRequestHeaderBytesSent > 20)
            #expect(transaction.countOfRequestBodyBytesSent == 0)
            #expect(transaction.countOfResponseHeaderBytesReceived > 20)
            #expect(transaction.requestEnd != nil && transaction.responseEnd != nil)
        }
        #expect(second.countOfResponseBodyBytesReceived == body.utf8.count)
        #expect(first.countOfResponseBodyBytesReceived == 0)
        #expect(metrics.taskInterval.lowerBound <= first.fetchStart!)
        #expect(second.responseEnd! <= metrics.taskInterval.upperBound)
        #expect(first.responseEnd! <= second.fetchStart!)
    }

    @Test("localhost: the remote address is the one connected to (127.0.0.1), and the name lookup is timed")
    func localhostAddress() throws {
        let server = try TestHTTPServer(routes: ["/": .text("hi")])
        defer { server.shutdown() }
        let box = MetricsBox()
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            let request = HTTPRequest(method: .get, scheme: "http", authority: "localhost:\(server.port)", path: "/")
            var options = UVURLSession.RequestOptions()
            options.metricsHandler = box.handler
            #expect(options.isDefault, "a metrics handler overrides no deadline")
            #expect(fetch(session.dataTaskPublisher(for: request, options: options), on: loop)?.text == "hi")
        }
        let transaction = try #require(box.last?.transactionMetrics.first)
        #expect(transaction.remoteAddress == "127.0.0.1")
        #expect(transaction.remotePort == server.port)
        let lookupStart = try #require(transaction.domainLookupStart)
        let lookupEnd = try #require(transaction.domainLookupEnd)
        #expect(lookupStart <= lookupEnd)
        expectOrdered(transaction)
    }

    @Test("injected delays show where they were: a slow body lies between responseStart and responseEnd")
    func injectedDelays() throws {
        let server = try TestHTTPServer(routes: ["/slow": .fault(.slowBody(chunks: 4, delay: .milliseconds(30)))])
        defer { server.shutdown() }
        let box = MetricsBox()
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration()
            configuration.taskMetricsHandler = box.handler
            let session = UVURLSession(loop: loop, configuration: configuration)
            #expect(fetch(session.dataTaskPublisher(for: server.url("/slow")), on: loop)?.status == 200)
        }
        let transaction = try #require(box.last?.transactionMetrics.first)
        expectOrdered(transaction)
        let bodyTime = transaction.responseStart!.distance(to: transaction.responseEnd!)
        #expect(bodyTime >= .milliseconds(80), "3 of the 4 delays of 30 ms come after the first byte: \(bodyTime)")
        #expect(transaction.countOfResponseBodyBytesReceived == 1024)
    }

    @Test("a failed task hands over its metrics too: one transaction, no response")
    func failedTask() throws {
        let refused = try TestHTTPServer(fault: .refuse)
        defer { refused.shutdown() }
        let box = MetricsBox()
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration()
            configuration.taskMetricsHandler = box.handler
            let session = UVURLSession(loop: loop, configuration: configuration)
            #expect(fetch(session.dataTaskPublisher(for: refused.url("/")), on: loop)?.error?.code == .cannotConnectToHost)
        }
        let metrics = try #require(box.last)
        #expect(metrics.transactionMetrics.count == 1)
        #expect(metrics.transactionMetrics[0].response == nil)
        #expect(metrics.transactionMetrics[0].requestStart == nil)
    }

    @Test("without a handler nothing is collected: no recorder on the task")
    func offByDefault() throws {
        let server = try TestHTTPServer(routes: ["/": .text("x")])
        defer { server.shutdown() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            var sawRecorder = false
            let publisher = session.dataTaskPublisher(for: server.url("/"))
            let cancellable = publisher.sink(receiveCompletion: { _ in }, receiveValue: { _ in
                sawRecorder = session.engine.tasksCollectingMetrics > 0
            })
            withExtendedLifetime(cancellable) { _ = loop.run() }
            #expect(!sawRecorder)
        }
    }

    @Test("async: dataAndMetrics returns the body, the head and the metrics; the request's handler also runs")
    func asyncMetrics() async throws {
        let server = try TestHTTPServer(routes: ["/a": .text("async")])
        defer { server.shutdown() }
        let box = MetricsBox()
        try await withLoopThread { loop in
            let session = UVURLSession(loop: loop)
            let request = HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1:\(server.port)", path: "/a")
            let (data, response, metrics) = try await session.dataAndMetrics(
                for: request, body: Data("12345".utf8), options: .init(metricsHandler: box.handler))
            #expect(String(decoding: data, as: UTF8.self) == "async")
            #expect(response.status == .ok)
            #expect(metrics.transactionMetrics.count == 1)
            #expect(metrics.transactionMetrics[0].countOfRequestBodyBytesSent == 5)
            #expect(box.count == 1)
        }
    }
}
