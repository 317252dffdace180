import UVCombineHTTPCore
import UVCombineWebSocketCore

/// Why a WebSocket task's operation failed: the typed error of
/// `UVWebSocketTask`'s sends (and the C API's WebSocket's), receives, pings and publishers.
///
/// ```swift
/// task.receive { result in
///     if case .failure(let error) = result, case .protocolViolation(let violation) = error.reason {
///         print(violation.closeCode) // e.g. invalidFramePayloadData (1007)
///     }
/// }
/// ```
///
/// Threading: a value type; `Sendable`.
public struct WebSocketError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What happened.
    ///
    /// ```swift
    /// if case .protocolViolation(let violation) = error.reason { print(violation.reason) }
    /// ```
    public enum Reason: Sendable, Hashable {
        /// Connecting, TLS, the proxy or the connection itself failed
        /// (`.cannotConnectToHost`, `.secureConnectionFailed`,
        /// `.networkConnectionLost`, ...), or the URL was not valid.
        case transport(UVURLError)
        /// The server's answer to the opening handshake was not a valid
        /// upgrade (a 404, a wrong `Sec-WebSocket-Accept`, ...).
        case handshake(WebSocketHandshakeError)
        /// The server broke RFC 6455 or RFC 7692; the task sent a close
        /// frame with the violation's code (1002, 1007, 1009) and closed.
        case protocolViolation(WebSocketProtocolError)
        /// The connection ended without a close frame (1006).
        case abnormalClosure
        /// The connection is closed (the close handshake took place, with
        /// ``WebSocketError/closeCode``); nothing more can be sent or received.
        case closed
        /// The task was cancelled before it was open, or a second
        /// subscriber tried to receive while one is attached.
        case cancelled
        /// The opening or the closing handshake took longer than the
        /// task's `UVWebSocketTask.Options` allow.
        case timedOut
    }

    /// What happened.
    public let reason: Reason
    /// The close code the connection ended with, when it ended
    /// (``WebSocketCloseCode/invalid`` otherwise).
    public let closeCode: WebSocketCloseCode

    /// Creates an error.
    ///
    /// ```swift
    /// let error = WebSocketError(.closed, closeCode: .normalClosure)
    /// ```
    public init(_ reason: Reason, closeCode: WebSocketCloseCode = .invalid) {
        self.reason = reason
        self.closeCode = closeCode
    }

    /// The reason, and the close code when there is one.
    public var description: String {
        let text: String
        switch reason {
        case .transport(let error): text = "transport: \(error)"
        case .handshake(let error): text = "handshake: \(error)"
        case .protocolViolation(let error): text = "protocol violation: \(error)"
        case .abnormalClosure: text = "the connection ended without a close frame"
        case .closed: text = "the connection is closed"
        case .cancelled: text = "cancelled"
        case .timedOut: text = "timed out"
        }
        return closeCode == .invalid ? text : "\(text), close code \(closeCode)"
    }
}
