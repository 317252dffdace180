/// Why the peer's bytes broke RFC 6455 or RFC 7692: the close code the
/// connection is failed with (1002, 1007, 1009, ...) and what was wrong.
///
/// The protocol core throws it; the task sends a close frame with
/// ``closeCode`` and reports it inside a ``WebSocketError``.
///
/// ```swift
/// do { try decoder.next() } catch { print(error.closeCode) } // protocolError (1002)
/// ```
///
/// Threading: a value type; `Sendable`.
public struct WebSocketProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The close code the connection is failed with.
    public let closeCode: WebSocketCloseCode
    /// What was wrong, for people.
    public let reason: String

    /// Creates an error failing the connection with `closeCode`.
    ///
    /// ```swift
    /// let error = WebSocketProtocolError(.protocolError, "masked frame from the server")
    /// ```
    public init(_ closeCode: WebSocketCloseCode, _ reason: String) {
        self.closeCode = closeCode
        self.reason = reason
    }

    /// `reason (closeCode)`.
    public var description: String { "\(reason) (\(closeCode.rawValue))" }
}
