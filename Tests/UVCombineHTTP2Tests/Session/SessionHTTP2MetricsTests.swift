import Foundation
import HTTPTypes
import Synchronization
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPClient
import UVCombineLoop

/// Task metrics (issue 35) over HTTP/2 (issue 33): the stream's events
/// reach the same collection points as an HTTP/1.1 exchange.
@Suite("Task metrics over HTTP/2 against nghttpd", .enabled(if: NghttpdServer.executable != nil, "nghttpd not installed"))
struct SessionHTTP2MetricsTests {
    @Test("two requests on one h2c connection: protocol h2, the second reused, steps ordered, body bytes counted")
    func metricsOverH2() throws {
        let body = patternBytes(4096)
        let server = try NghttpdServer(files: ["body.bin": body])
        defer { server.stop() }
        let collected = Mutex<[UVURLSessionTaskMetrics]>([])
        try withH2Loop { loop in
            let (session, counter) = makeH2Session(loop) { configuration in
                configuration.taskMetricsHandler = UVURLSession.MetricsHandler { metrics in
                    collected.withLock { $0.append(metrics) }
                }
            }
            // One after the other, so the second finds the connection open.
            let first = Outcomes()
            first.start(0, session.dataTaskPublisher(for: h2Request("127.0.0.1:\(server.port)", "/body.bin")))
            _ = loop.run()
            let second = Outcomes()
            second.start(0, session.dataTaskPublisher(for: h2Request("127.0.0.1:\(server.port)", "/body.bin")))
            _ = loop.run()
            #expect(first.errors().isEmpty && second.errors().isEmpty)
            #expect(counter.connections == 1)
            session.invalidateAndCancel()
        }
        let metrics = collected.withLock { $0 }
        try #require(metrics.count == 2)
        let transactions = metrics.map { $0.transactionMetrics }
        #expect(transactions.map(\.count) == [1, 1])
        let (a, b) = (try #require(transactions[0].first), try #require(transactions[1].first))
        #expect(a.networkProtocolName == "h2")
        #expect(b.networkProtocolName == "h2")
        #expect(!a.isReusedConnection)
        #expect(b.isReusedConnection)
        #expect(a.connectStart != nil && b.connectStart == nil)
        #expect(a.remoteAddress == "127.0.0.1" && a.remotePort == server.port)
        for t in [a, b] {
            #expect(t.response?.status == .ok)
            #expect(t.countOfResponseBodyBytesReceived == body.count)
            let steps = [t.fetchStart, t.requestStart, t.requestEnd, t.responseStart, t.responseEnd]
            let instants = steps.compactMap { $0 }
            #expect(instants.count == steps.count, "every step recorded: \(t)")
            #expect(instants == instants.sorted(), "steps in order: \(t)")
        }
    }
}
