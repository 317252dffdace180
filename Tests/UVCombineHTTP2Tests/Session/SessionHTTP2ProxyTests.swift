import Foundation
import HTTPTypes
import Synchronization
import Testing
import TestServerSupport
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPClient
import UVCombineHTTPCore
import UVCombineLoop

/// HTTP/2 through a proxy (issue 33, "proxies (CONNECT, then TLS with
/// ALPN)"): an `https` URL through scripts/test-proxy.py's `CONNECT`
/// tunnel, TLS inside the tunnel, ALPN choosing `h2` at nginx
/// (`listen ... ssl http2`). The task metrics' protocol name says which
/// protocol the exchange spoke.
@Suite("UVURLSession over HTTP/2 through a CONNECT proxy", .serialized,
       .enabled(if: NginxH2Server.executable != nil, "nginx not installed"))
struct SessionHTTP2ProxyTests {
    @Test("CONNECT, then TLS with ALPN h2 inside the tunnel: 10 requests multiplexed on one tunnel, protocol h2")
    func connectThenALPN() throws {
        let files = try SessionHTTP2TLSTests.makeCertificate()
        defer { try? FileManager.default.removeItem(at: files.directory) }
        let server = try NginxH2Server(files: ["small.bin": SessionHTTP2NginxTests.small],
                                       tls: (files.certificate, files.key))
        defer { server.stop() }
        let proxy = try TestProxy()
        defer { proxy.stop() }
        let collected = Mutex<[String?]>([])
        try withH2Loop { loop in
            let (session, counter) = makeH2Session(loop, version: .automatic) { configuration in
                configuration.tls.trustRoots = .pemFile(files.certificate)
                configuration.proxy = UVURLSession.ProxyConfiguration(
                    http: nil, https: UVURLSession.Proxy(host: "127.0.0.1", port: proxy.port), noProxy: "")
                configuration.taskMetricsHandler = UVURLSession.MetricsHandler { metrics in
                    collected.withLock { $0.append(contentsOf: metrics.transactionMetrics.map(\.networkProtocolName)) }
                }
            }
            let outcomes = Outcomes()
            for index in 0..<10 {
                outcomes.start(index, session.dataTaskPublisher(
                    for: h2Request("127.0.0.1:\(server.port)", "/small.bin", scheme: "https")))
            }
            _ = loop.run()
            #expect(outcomes.values.values.filter {
                if case .success(let v) = $0 { Array(v.data) == SessionHTTP2NginxTests.small } else { false }
            }.count == 10, "\(outcomes.errors())")
            #expect(counter.connections == 1)
            #expect(counter.http2Connections == 1, "ALPN chose h2 inside the tunnel")
            session.invalidateAndCancel()
        }
        #expect(collected.withLock { $0 } == Array(repeating: "h2", count: 10))
        #expect(proxy.requests() == [TestProxy.Request(connection: 1, method: "CONNECT", target: "127.0.0.1:\(server.port)",
                                                      hadAuthorization: false)],
                "one tunnel carries all ten streams")
    }

    @Test("httpVersion http1_1 per request offers http/1.1 alone: a second tunnel, protocol http/1.1")
    func connectThenHTTP11() throws {
        let files = try SessionHTTP2TLSTests.makeCertificate()
        defer { try? FileManager.default.removeItem(at: files.directory) }
        let server = try NginxH2Server(files: ["small.bin": SessionHTTP2NginxTests.small],
                                       tls: (files.certificate, files.key))
        defer { server.stop() }
        let proxy = try TestProxy()
        defer { proxy.stop() }
        let collected = Mutex<[String?]>([])
        try withH2Loop { loop in
            let (session, counter) = makeH2Session(loop, version: .automatic) { configuration in
                configuration.tls.trustRoots = .pemFile(files.certificate)
                configuration.proxy = UVURLSession.ProxyConfiguration(
                    http: nil, https: UVURLSession.Proxy(host: "127.0.0.1", port: proxy.port), noProxy: "")
                configuration.taskMetricsHandler = UVURLSession.MetricsHandler { metrics in
                    collected.withLock { $0.append(contentsOf: metrics.transactionMetrics.map(\.networkProtocolName)) }
                }
            }
            let outcomes = Outcomes()
            outcomes.start(0, session.dataTaskPublisher(
                for: h2Request("127.0.0.1:\(server.port)", "/small.bin", scheme: "https")))
            _ = loop.run()
            var options = UVURLSession.RequestOptions()
            options.httpVersion = .http1_1
            outcomes.start(1, session.dataTaskPublisher(
                for: h2Request("127.0.0.1:\(server.port)", "/small.bin", scheme: "https"), options: options))
            _ = loop.run()
            #expect(outcomes.bodies().count == 2, "\(outcomes.errors())")
            #expect(counter.connections == 2)
            #expect(counter.http2Connections == 1)
            session.invalidateAndCancel()
        }
        #expect(collected.withLock { $0 } == ["h2", "http/1.1"])
        #expect(proxy.requests().map(\.method) == ["CONNECT", "CONNECT"])
    }
}
