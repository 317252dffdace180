/// A frame's opcode (RFC 6455, 5.2): the four data and control kinds this
/// library knows. Any other number is a protocol error (1002).
///
/// ```swift
/// print(WebSocketOpcode(rawValue: 0x9)) // Prints: "Optional(ping)"
/// ```
///
/// Threading: a value type; `Sendable`.
public enum WebSocketOpcode: UInt8, Sendable, CustomStringConvertible {
    /// A later frame of a fragmented message.
    case continuation = 0x0
    /// A text message's first frame (UTF-8).
    case text = 0x1
    /// A binary message's first frame.
    case binary = 0x2
    /// The close frame: an optional code and reason.
    case close = 0x8
    /// A ping: the peer answers with a pong.
    case ping = 0x9
    /// A pong: the answer to a ping, or a heartbeat.
    case pong = 0xA

    /// Close, ping and pong: never fragmented, at most 125 payload bytes.
    public var isControl: Bool { rawValue & 0x8 != 0 }

    /// The opcode's name: `text`, `ping`, ...
    public var description: String {
        switch self {
        case .continuation: "continuation"
        case .text: "text"
        case .binary: "binary"
        case .close: "close"
        case .ping: "ping"
        case .pong: "pong"
        }
    }
}
