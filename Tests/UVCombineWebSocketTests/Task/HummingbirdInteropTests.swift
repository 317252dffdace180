import Foundation
import Testing
import UVCombineHTTP
import UVCombineWebSocket

/// Against hummingbird-websocket 2.8.1 (a Swift server on SwiftNIO), built
/// by `make interop-servers` from Tests/Interop/HummingbirdWebSocketServer
/// and found through `UVCOMBINE_HUMMINGBIRD_WS_SERVER`. `make test` builds
/// it and sets the variable; a plain `swift test` skips this suite and
/// says how to build the server; CI (`UVC_REQUIRE_WS_SERVERS=1`) fails
/// without it.
@Suite("WebSocket against hummingbird-websocket",
       .enabled(if: EchoServer.shouldRun(.hummingbird),
                "the hummingbird echo server is not built (make interop-servers; UVCOMBINE_HUMMINGBIRD_WS_SERVER=its path)"))
struct HummingbirdInteropTests {
    @Test("echo of text and binary messages from 0 bytes to 16 MiB", arguments: [false, true])
    func echo(deflate: Bool) throws { try InteropScenarios.echo(.hummingbird, deflate: deflate) }

    @Test("fragmented messages both ways", arguments: [false, true])
    func fragmented(deflate: Bool) throws { try InteropScenarios.fragmented(.hummingbird, deflate: deflate, serverFragments: true) }

    @Test("pings get pongs", arguments: [false, true])
    func ping(deflate: Bool) throws { try InteropScenarios.ping(.hummingbird, deflate: deflate) }

    @Test("client-initiated close: 1000 both ways, publishers finish", arguments: [false, true])
    func clientClose(deflate: Bool) throws { try InteropScenarios.clientClose(.hummingbird, deflate: deflate) }

    @Test("server-initiated close: code 4001 and reason reported", arguments: [false, true])
    func serverClose(deflate: Bool) throws { try InteropScenarios.serverClose(.hummingbird, deflate: deflate) }

    @Test("abrupt TCP close: 1006", arguments: [false, true])
    func abruptClose(deflate: Bool) throws { try InteropScenarios.abruptClose(.hummingbird, deflate: deflate) }

    @Test("echo and client close over wss (NIOSSL), verified against the test CA", arguments: [false, true])
    func echoOverTLS(deflate: Bool) throws {
        let certificates = try WSSCertificates()
        defer { certificates.remove() }
        let server = try EchoServer(.hummingbird, deflate: deflate, tls: (certificates.certificate, certificates.key))
        defer { server.stop() }
        let messages: [UVWebSocketTask.Message] = [.string("hello"), .data(noise(100_000)), .string(sampleText(70_000)), .data(Data())]
        var exchange: EchoExchange?
        var configuration = UVURLSession.Configuration()
        configuration.tls.trustRoots = .pemFile(certificates.caFile)
        try withWebSocketSession(configuration: configuration) { session in
            let task = session.webSocketTask(with: URL(string: "wss://localhost:\(server.port)/echo")!)
            exchange = EchoExchange(task: task, messages: messages)
            exchange!.start()
        }
        let result = try #require(exchange)
        #expect(result.errors.isEmpty, "\(result.errors)")
        #expect(result.received == messages)
        #expect((result.task.compression != nil) == deflate)
        #expect(result.task.closeCode == .normalClosure)
    }
}
