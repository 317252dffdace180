import Foundation
import HTTPTypes
import Testing
import UVCombineHTTP
import UVCombineLoop

/// Task metrics over TLS: the handshake's instants lie between TCP's
/// connect and the request; a second request on the kept-alive
/// connection has none.
@Suite("Task metrics over TLS")
struct TLSTaskMetricsTests {
    @Test("https: secureConnectionStart/End after connectEnd, before requestStart; the reused connection has none")
    func handshakeTimed() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let server = try TLSTestServer(.python, certificate: certificates.localhost, key: certificates.keyFile,
                                       files: ["a.txt": Data("over TLS".utf8)])
        defer { server.stop() }
        let box = MetricsBox()
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration.trusting(certificates.caFile)
            configuration.taskMetricsHandler = box.handler
            let session = UVURLSession(loop: loop, configuration: configuration)
            for _ in 0..<2 {
                #expect(fetch(session.dataTaskPublisher(for: server.url("/a.txt")), on: loop)?.status == 200)
            }
        }
        let all = box.all.withLock { $0 }
        try #require(all.count == 2)
        let first = all[0].transactionMetrics[0], second = all[1].transactionMetrics[0]
        expectOrdered(first)
        let connectEnd = try #require(first.connectEnd)
        let secureStart = try #require(first.secureConnectionStart)
        let secureEnd = try #require(first.secureConnectionEnd)
        #expect(connectEnd <= secureStart && secureStart < secureEnd && secureEnd <= first.requestStart!)
        #expect(first.remoteAddress == "127.0.0.1" && first.remotePort == server.port)
        #expect(second.isReusedConnection && second.secureConnectionStart == nil && second.connectStart == nil)
        #expect(second.remoteAddress == "127.0.0.1")
        #expect(first.countOfResponseBodyBytesReceived >= "over TLS".utf8.count)
    }
}
