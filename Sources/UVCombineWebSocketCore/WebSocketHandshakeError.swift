/// Why the opening handshake failed: the server's answer was not a valid
/// `101 Switching Protocols` for this request (RFC 6455, 4.1), or the
/// request could not be formed.
///
/// ```swift
/// if let error = error.handshake { print(error.statusCode ?? 0, error.reason) } // 404 expected status 101, got 404
/// ```
///
/// Threading: a value type; `Sendable`.
public struct WebSocketHandshakeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public let reason: String
    /// The server's status code, when it answered with a status line.
    public let statusCode: Int?

    /// Creates an error.
    ///
    /// ```swift
    /// let error = WebSocketHandshakeError("no Upgrade: websocket", statusCode: 101)
    /// ```
    public init(_ reason: String, statusCode: Int? = nil) {
        self.reason = reason
        self.statusCode = statusCode
    }

    /// The reason.
    public var description: String { reason }
}
