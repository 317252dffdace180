import Foundation
import Testing
import TestServerSupport
import UVCombineHTTP
import UVCombineWebSocket

/// Against our own broken server (Servers/hostile_server.py): each
/// violation fails the task with the RFC's close code, in the error and
/// in the close frame the server receives.
@Suite("WebSocket against a hostile server", .enabled(if: ServerProcess.executable(named: "python3") != nil, "python3 not found"))
struct HostileServerTests {
    final class Server {
        let process: ServerProcess
        let port: Int

        init() throws {
            let script = EchoServer.serversDirectory.appendingPathComponent("hostile_server.py").path
            process = try ServerProcess(executable: ServerProcess.executable(named: "python3")!, arguments: ["-u", script])
            guard let port = process.readPort().port else {
                process.stop()
                throw EchoServer.Failure(description: "the hostile server reported no port")
            }
            self.port = port
        }

        /// The server's report on the close frame it received.
        func report() -> String {
            process.readOutput { text in
                text.split(separator: "\n").last { $0.hasPrefix("close") || $0.hasPrefix("no close") }.map(String.init)
            }.found ?? "nothing"
        }

        deinit { process.stop() }
    }

    struct Case: Sendable, CustomStringConvertible {
        let path: String
        let code: WebSocketCloseCode
        let reason: String
        var description: String { path }
    }

    static let cases: [Case] = [
        Case(path: "/masked", code: .protocolError, reason: "a masked frame from the server"),
        Case(path: "/invalid-utf8", code: .invalidFramePayloadData, reason: "a text message that is not UTF-8"),
        Case(path: "/invalid-utf8-fragment", code: .invalidFramePayloadData, reason: "a text message that is not UTF-8"),
        Case(path: "/rsv1", code: .protocolError, reason: "reserved bit RSV1 set without an extension"),
        Case(path: "/rsv2", code: .protocolError, reason: "reserved bit RSV2 set"),
        Case(path: "/rsv3", code: .protocolError, reason: "reserved bit RSV3 set"),
        Case(path: "/opcode", code: .protocolError, reason: "unknown opcode 0x3"),
        Case(path: "/big-ping", code: .protocolError, reason: "a ping frame longer than 125 bytes"),
        Case(path: "/fragmented-ping", code: .protocolError, reason: "a fragmented ping frame"),
        Case(path: "/bad-close-code", code: .protocolError, reason: "close code 1005 may not be sent"),
        Case(path: "/one-byte-close", code: .protocolError, reason: "a close frame with a one-byte payload"),
        Case(path: "/close-reason-not-utf8", code: .invalidFramePayloadData, reason: "a close reason that is not UTF-8"),
        Case(path: "/continuation", code: .protocolError, reason: "a continuation frame outside a fragmented message"),
        Case(path: "/oversized", code: .messageTooBig, reason: "a frame of 2097152 bytes exceeds the limit of 1048576"),
        Case(path: "/deflate-bomb", code: .messageTooBig, reason: "the inflated message exceeds the limit of 1048576 bytes"),
    ]

    @Test("each violation closes with the RFC's code and fails the receive with it", arguments: cases)
    func violation(_ violation: Case) throws {
        let server = try Server()
        let box = ResultBox()
        var task: UVWebSocketTask?
        try withWebSocketSession { session in
            let socket = session.webSocketTask(with: URL(string: "ws://127.0.0.1:\(server.port)\(violation.path)")!)
            task = socket
            socket.resume()
            socket.receive { box.result = $0 }
        }
        let outcome = box.result
        let expected = WebSocketError(.protocolViolation(WebSocketProtocolError(violation.code, violation.reason)),
                                      closeCode: violation.code)
        #expect(outcome == .failure(expected))
        #expect(task?.closeCode == violation.code)
        #expect(server.report() == "close \(violation.code.rawValue)")
    }

    @Test("a wrong Sec-WebSocket-Accept fails the handshake, and no close frame is sent")
    func badAccept() throws {
        let server = try Server()
        let box = ResultBox()
        try withWebSocketSession { session in
            let socket = session.webSocketTask(with: URL(string: "ws://127.0.0.1:\(server.port)/bad-accept")!)
            socket.resume()
            socket.receive { box.result = $0 }
        }
        #expect(box.result == .failure(WebSocketError(.handshake(WebSocketHandshakeError("Sec-WebSocket-Accept does not match the key", statusCode: 101)))))
        #expect(server.report() == "no close")
    }

    final class ResultBox: @unchecked Sendable {
        var result: Result<UVWebSocketTask.Message, WebSocketError>?
    }
}

