/// A WebSocket close status code (RFC 6455, 7.4): the number a close frame
/// carries, with the named codes of `URLSessionWebSocketTask.CloseCode`.
///
/// A struct rather than Foundation's closed `enum`: servers send codes no
/// enum lists (application codes 3000-4999), and a task must report them
/// as received (docs/combine-compatibility.md).
///
/// ```swift
/// task.cancel(with: .normalClosure, reason: nil)
/// if task.closeCode == WebSocketCloseCode(rawValue: 4000) { print("application code") }
/// ```
///
/// Threading: a value type; `Sendable`.
public struct WebSocketCloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The code's number; 0 for ``invalid``.
    public let rawValue: Int

    /// Wraps `rawValue` as a code.
    ///
    /// ```swift
    /// let code = WebSocketCloseCode(rawValue: 4001)
    /// ```
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// No close yet (Foundation's `.invalid`).
    public static let invalid = WebSocketCloseCode(rawValue: 0)
    /// 1000: the purpose of the connection was fulfilled.
    public static let normalClosure = WebSocketCloseCode(rawValue: 1000)
    /// 1001: an endpoint is going away.
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: a protocol error.
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1003: data of a type the endpoint cannot accept.
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// 1005: the close frame carried no code (never sent).
    public static let noStatusReceived = WebSocketCloseCode(rawValue: 1005)
    /// 1006: the connection ended without a close frame (never sent).
    public static let abnormalClosure = WebSocketCloseCode(rawValue: 1006)
    /// 1007: message data inconsistent with its type (text that is not UTF-8).
    public static let invalidFramePayloadData = WebSocketCloseCode(rawValue: 1007)
    /// 1008: a policy was violated.
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a message too big to process.
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// 1010: the server did not negotiate an extension the client requires.
    public static let mandatoryExtensionMissing = WebSocketCloseCode(rawValue: 1010)
    /// 1011: the server hit an unexpected condition.
    public static let internalServerError = WebSocketCloseCode(rawValue: 1011)
    /// 1015: the TLS handshake failed (never sent).
    public static let tlsHandshakeFailure = WebSocketCloseCode(rawValue: 1015)

    /// Whether the code may appear in a close frame (RFC 6455, 7.4.1 and
    /// the IANA registry): 1000-1003, 1007-1014, and 3000-4999. 1004 is
    /// reserved; 1005, 1006 and 1015 are only reported locally; other
    /// numbers below 3000 are unassigned.
    ///
    /// ```swift
    /// print(WebSocketCloseCode(rawValue: 1005).isSendable) // Prints: "false"
    /// ```
    public var isSendable: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    /// The name of a known code, else its number.
    public var description: String {
        switch rawValue {
        case 0: "invalid"
        case 1000: "normalClosure (1000)"
        case 1001: "goingAway (1001)"
        case 1002: "protocolError (1002)"
        case 1003: "unsupportedData (1003)"
        case 1005: "noStatusReceived (1005)"
        case 1006: "abnormalClosure (1006)"
        case 1007: "invalidFramePayloadData (1007)"
        case 1008: "policyViolation (1008)"
        case 1009: "messageTooBig (1009)"
        case 1010: "mandatoryExtensionMissing (1010)"
        case 1011: "internalServerError (1011)"
        case 1015: "tlsHandshakeFailure (1015)"
        default: "\(rawValue)"
        }
    }
}
