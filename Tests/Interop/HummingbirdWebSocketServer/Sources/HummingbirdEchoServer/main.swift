// An echo server on hummingbird-websocket, for UVCombineWebSocketTests and
// the WebSocket benchmarks. Usage:
//
//     HummingbirdEchoServer deflate|plain [certfile keyfile]
//
// Prints "listening on port N " once it listens on 127.0.0.1 (port chosen
// by the kernel), as the python and node echo servers do.
//
// Paths (the same as python_echo_server.py's):
//   /echo          echoes every message
//   /fragmented    echoes every message as fragments of 1000 characters/bytes
//   /close/CODE    echoes the first message, then closes with CODE, "server says bye"
//   /drop          echoes the first message, then closes TCP without a close frame
//   /push          for each text message "COUNT SIZE", sends COUNT binary
//                  messages of SIZE bytes (the benchmarks' receive-only workload)
#if canImport(Glibc)
import Glibc
#endif
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import HummingbirdWSCompression
import Logging
import NIOCore
import NIOSSL
import NIOWebSocket

let arguments = CommandLine.arguments
guard arguments.count == 2 || arguments.count == 4, ["deflate", "plain"].contains(arguments[1]) else {
    print("usage: HummingbirdEchoServer deflate|plain [certfile keyfile]")
    exit(2)
}
/// The server's limits.
enum Limits {
    /// 64 MiB: the tests echo up to 16 MiB, and the limits must be the
    /// peer's, not ours. (A static, not a top-level `let`: top-level
    /// variables are main-actor isolated in Swift 6.)
    static let maximumSize = 64 << 20
}
let maximumSize = Limits.maximumSize
let extensions: [WebSocketExtensionFactory] = arguments[1] == "deflate"
    ? [.perMessageDeflate(maxDecompressedFrameSize: maximumSize)] : []
let webSocket = HTTP1WebSocketUpgradeChannel.Configuration(
    ws: WebSocketServerConfiguration(maxFrameSize: maximumSize, extensions: extensions, autoPing: .disabled)
)

let upgrade = HTTPServerBuilder.http1WebSocketUpgrade(configuration: webSocket) { request, channel, _ in
    let path = request.path ?? "/"
    return .upgrade([:]) { inbound, outbound, _ in
        for try await message in inbound.messages(maxSize: Limits.maximumSize) {
            if path == "/push", case .text(let command) = message {
                try await Echo.push(command, to: outbound)
                continue
            }
            if path == "/fragmented" {
                try await Echo.writeFragments(message, to: outbound)
            } else {
                switch message {
                case .text(let text): try await outbound.write(.text(text))
                case .binary(let buffer): try await outbound.write(.binary(buffer))
                }
            }
            if path.hasPrefix("/close/"), let code = Int(path.dropFirst("/close/".count)) {
                try await outbound.close(WebSocketErrorCode(codeNumber: code), reason: "server says bye")
                return
            }
            if path == "/drop" {
                // Closes the TCP connection with no close frame.
                try await channel.close()
                return
            }
        }
    }
}

/// What the handler does per message (static: Sendable, unlike a
/// function of the top-level code).
enum Echo {
    /// Sends COUNT binary messages of SIZE bytes for the command "COUNT SIZE".
    static func push(_ command: String, to outbound: WebSocketOutboundWriter) async throws {
        let words = command.split(separator: " ").compactMap { Int($0) }
        guard words.count == 2, words[0] >= 0, (0...Limits.maximumSize).contains(words[1]) else { return }
        let payload = ByteBuffer(repeating: 0x2A, count: words[1])
        for _ in 0..<words[0] { try await outbound.write(.binary(payload)) }
    }

    /// Echoes `message` in fragments of 1000 characters (text) or bytes.
    static func writeFragments(_ message: WebSocketMessage, to outbound: WebSocketOutboundWriter) async throws {
        switch message {
        case .text(let text):
            try await outbound.withTextMessageWriter { writer in
                var rest = Substring(text)
                repeat {
                    let piece = rest.prefix(1000)
                    try await writer(String(piece))
                    rest = rest.dropFirst(piece.count)
                } while !rest.isEmpty
            }
        case .binary(var buffer):
            try await outbound.withBinaryMessageWriter { writer in
                repeat {
                    let piece = buffer.readSlice(length: min(1000, buffer.readableBytes))!
                    try await writer(piece)
                } while buffer.readableBytes > 0
            }
        }
    }
}

let server: HTTPServerBuilder
if arguments.count == 4 {
    var tls = TLSConfiguration.makeServerConfiguration(
        certificateChain: try NIOSSLCertificate.fromPEMFile(arguments[2]).map { .certificate($0) },
        privateKey: .privateKey(try NIOSSLPrivateKey(file: arguments[3], format: .pem))
    )
    tls.minimumTLSVersion = .tlsv12
    server = try .tls(upgrade, tlsConfiguration: tls)
} else {
    server = upgrade
}

var logger = Logger(label: "HummingbirdEchoServer")
logger.logLevel = .error
let app = Application(
    router: Router(),
    server: server,
    configuration: .init(address: .hostname("127.0.0.1", port: 0)),
    onServerRunning: { channel in
        print("listening on port \(channel.localAddress?.port ?? 0) ")
        fflush(nil)
    },
    logger: logger
)
try await app.runService()
