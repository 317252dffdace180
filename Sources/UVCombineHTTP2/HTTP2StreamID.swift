/// An HTTP/2 stream's identifier (RFC 9113, section 5.1.1): odd for the
/// streams a client opens, 0 for the connection itself.
///
/// Threading: a value type; `Sendable`.
///
/// ```swift
/// let id = HTTP2StreamID(1)
/// print(id, id.isClientInitiated) // Prints: "1 true"
/// ```
public struct HTTP2StreamID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The 31-bit value as nghttp2 passes it.
    public let rawValue: Int32

    /// Wraps a stream id.
    public init(_ rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Stream 0: the connection.
    public static let connection = HTTP2StreamID(0)

    /// Whether a client opened it (odd ids).
    public var isClientInitiated: Bool { rawValue & 1 == 1 }

    /// Orders ids as the connection opened them.
    public static func < (lhs: HTTP2StreamID, rhs: HTTP2StreamID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The number.
    public var description: String { String(rawValue) }
}
