import Foundation
import Testing
import UVCombineHTTP
import UVCombineWebSocket

/// `wss` against python's websockets behind its ssl module: the session's
/// TLS (SNI, certificate and host name verification) carries the
/// WebSocket.
@Suite("WebSocket over TLS (wss)",
       .enabled(if: EchoServer.shouldRun(.python), "python's websockets is not installed (pip install websockets)"))
struct SecureWebSocketTests {
    static func configuration(trusting caFile: String?) -> UVURLSession.Configuration {
        var configuration = UVURLSession.Configuration()
        if let caFile { configuration.tls.trustRoots = .pemFile(caFile) }
        return configuration
    }

    @Test("echo, ping and client close over wss to localhost, verified against the test CA", arguments: [false, true])
    func echoOverTLS(deflate: Bool) throws {
        let certificates = try WSSCertificates()
        defer { certificates.remove() }
        let server = try EchoServer(.python, deflate: deflate, tls: (certificates.certificate, certificates.key))
        defer { server.stop() }
        let messages: [UVWebSocketTask.Message] = [.string("hello"), .data(noise(100_000)), .string(sampleText(70_000)), .data(Data())]
        var exchange: EchoExchange?
        try withWebSocketSession(configuration: Self.configuration(trusting: certificates.caFile)) { session in
            let task = session.webSocketTask(with: URL(string: "wss://localhost:\(server.port)/echo")!)
            exchange = EchoExchange(task: task, messages: messages)
            exchange!.start()
        }
        let result = try #require(exchange)
        #expect(result.errors.isEmpty, "\(result.errors)")
        #expect(result.received == messages)
        #expect(result.task.closeCode == .normalClosure)
    }

    @Test("server-initiated close over wss reports the server's code")
    func serverCloseOverTLS() throws {
        let certificates = try WSSCertificates()
        defer { certificates.remove() }
        let server = try EchoServer(.python, deflate: false, tls: (certificates.certificate, certificates.key))
        defer { server.stop() }
        let outcome = InteropScenarios.Outcome()
        var task: UVWebSocketTask?
        try withWebSocketSession(configuration: Self.configuration(trusting: certificates.caFile)) { session in
            let socket = session.webSocketTask(with: URL(string: "wss://127.0.0.1:\(server.port)/close/4002")!)
            task = socket
            socket.resume()
            socket.send(.string("x")) { _ in }
            socket.receive { first in
                outcome.firstReceive = first
                socket.receive { outcome.secondReceive = $0 }
            }
        }
        #expect(outcome.firstReceive == .success(.string("x")))
        #expect(outcome.secondReceive == .failure(WebSocketError(.closed, closeCode: WebSocketCloseCode(rawValue: 4002))))
        #expect(task?.closeCode == WebSocketCloseCode(rawValue: 4002))
    }

    @Test("a certificate from an unknown CA fails the task as https does")
    func untrusted() throws {
        let certificates = try WSSCertificates()
        defer { certificates.remove() }
        let server = try EchoServer(.python, deflate: false, tls: (certificates.certificate, certificates.key))
        defer { server.stop() }
        let outcome = InteropScenarios.Outcome()
        try withWebSocketSession(configuration: Self.configuration(trusting: nil)) { session in
            let socket = session.webSocketTask(with: URL(string: "wss://localhost:\(server.port)/echo")!)
            socket.resume()
            socket.receive { outcome.firstReceive = $0 }
        }
        guard case .failure(let error) = outcome.firstReceive, case .transport(let transport) = error.reason else {
            Issue.record("expected a transport failure, got \(String(describing: outcome.firstReceive))")
            return
        }
        #expect(transport.code == .serverCertificateHasUnknownRoot)
    }
}
