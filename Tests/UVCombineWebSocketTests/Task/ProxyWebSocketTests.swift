import Foundation
import Testing
import TestServerSupport
import UVCombineHTTP
import UVCombineWebSocket

/// ws and wss through an HTTP proxy (scripts/test-proxy.py): both through a
/// `CONNECT` tunnel, with the proxy's basic authentication.
@Suite("WebSocket through a proxy",
       .enabled(if: EchoServer.shouldRun(.python), "python's websockets is not installed (pip install websockets)"))
struct ProxyWebSocketTests {
    @Test("ws and wss echo through CONNECT with credentials", arguments: [false, true])
    func throughProxy(secure: Bool) throws {
        let certificates = try WSSCertificates()
        defer { certificates.remove() }
        let server = try EchoServer(.python, deflate: true, tls: secure ? (certificates.certificate, certificates.key) : nil)
        defer { server.stop() }
        let proxy = try TestProxy(auth: "user:secret")
        defer { proxy.stop() }
        var configuration = UVURLSession.Configuration()
        configuration.tls.trustRoots = .pemFile(certificates.caFile)
        let through = UVURLSession.Proxy(host: "127.0.0.1", port: proxy.port, username: "user", password: "secret")
        configuration.proxy = UVURLSession.ProxyConfiguration(http: through, https: through)
        let messages: [UVWebSocketTask.Message] = [.string("through the tunnel"), .data(noise(70_000))]
        var exchange: EchoExchange?
        try withWebSocketSession(configuration: configuration) { session in
            let url = URL(string: "\(secure ? "wss" : "ws")://localhost:\(server.port)/echo")!
            exchange = EchoExchange(task: session.webSocketTask(with: url), messages: messages)
            exchange!.start()
        }
        let result = try #require(exchange)
        #expect(result.errors.isEmpty, "\(result.errors)")
        #expect(result.received == messages)
        #expect(proxy.requests() == [TestProxy.Request(connection: 1, method: "CONNECT", target: "localhost:\(server.port)",
                                                       hadAuthorization: true)])
    }

    @Test("a proxy that refuses CONNECT fails the task with proxyConnectFailed")
    func refused() throws {
        let proxy = try TestProxy(refuseConnect: true)
        defer { proxy.stop() }
        var configuration = UVURLSession.Configuration()
        configuration.proxy = UVURLSession.ProxyConfiguration(http: UVURLSession.Proxy(host: "127.0.0.1", port: proxy.port))
        let outcome = InteropScenarios.Outcome()
        try withWebSocketSession(configuration: configuration) { session in
            let task = session.webSocketTask(with: URL(string: "ws://localhost:9/echo")!)
            task.resume()
            task.receive { outcome.firstReceive = $0 }
        }
        guard case .failure(let error) = outcome.firstReceive, case .transport(let transport) = error.reason else {
            Issue.record("expected a transport failure, got \(String(describing: outcome.firstReceive))")
            return
        }
        #expect(transport.code == .proxyConnectFailed)
    }
}
