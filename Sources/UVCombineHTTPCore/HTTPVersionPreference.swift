/// Which HTTP version a request may use: HTTP/1.1 only, HTTP/2 where the
/// server agrees (ALPN over TLS, HTTP/1.1 on cleartext), or HTTP/2 with
/// prior knowledge (`h2c` on cleartext, no negotiation). curl's
/// `--http1.1`, `--http2` and `--http2-prior-knowledge`.
///
/// It is part of a ``ConnectionKey``: requests of different preferences
/// never share a connection.
///
/// ```swift
/// var key = try HTTPRequestTarget(string: "http://127.0.0.1:8080/").key
/// key.httpVersion = HTTPVersionPreference.http2PriorKnowledge.normalized(for: key.scheme)
/// print(key) // Prints: "http://127.0.0.1:8080 (h2c)"
/// ```
///
/// Threading: a value type; `Sendable`.
public enum HTTPVersionPreference: UInt8, Sendable, Hashable, CustomStringConvertible {
    /// HTTP/1.1 only (ALPN offers `http/1.1` alone).
    case http1_1
    /// HTTP/2 when TLS negotiates it (ALPN offers `h2` then `http/1.1`);
    /// HTTP/1.1 on cleartext (no `Upgrade: h2c`).
    case automatic
    /// HTTP/2 from the first byte on cleartext (`h2c` with prior
    /// knowledge); over TLS the same as ``automatic``.
    case http2PriorKnowledge

    /// What the preference means for a connection of `scheme`: on
    /// cleartext ``automatic`` is ``http1_1``; over TLS
    /// ``http2PriorKnowledge`` is ``automatic``. Keys store the normalized
    /// value, so equivalent preferences share connections.
    ///
    /// ```swift
    /// print(HTTPVersionPreference.automatic.normalized(for: .http)) // Prints: "http/1.1"
    /// ```
    public func normalized(for scheme: HTTPScheme) -> HTTPVersionPreference {
        switch (self, scheme) {
        case (.automatic, .http): .http1_1
        case (.http2PriorKnowledge, .https): .automatic
        default: self
        }
    }

    /// Whether a connection of this (normalized) preference may carry
    /// HTTP/2.
    public var mayUseHTTP2: Bool { self != .http1_1 }

    /// `http/1.1`, `automatic` or `h2c`.
    public var description: String {
        switch self {
        case .http1_1: "http/1.1"
        case .automatic: "automatic"
        case .http2PriorKnowledge: "h2c"
        }
    }
}
