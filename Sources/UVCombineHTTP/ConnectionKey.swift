/// What makes two requests able to share a connection: scheme, host and
/// port. The pool keeps connections, limits and waiting queues per key.
///
/// ```swift
/// let key = try HTTPRequestTarget(string: "http://example.com/a").key
/// print(key) // Prints: "http://example.com:80"
/// ```
///
/// Threading: a value type; `Sendable`.
public struct ConnectionKey: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`.
    public var scheme: HTTPScheme
    /// The host as ``HTTPRequestTarget/host`` gives it (lowercased name or
    /// bare IPv6 address).
    public var host: String
    /// The TCP port.
    public var port: Int

    /// Creates a key.
    public init(scheme: HTTPScheme, host: String, port: Int) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// `scheme://host:port`, with brackets around an IPv6 host.
    public var description: String {
        let shownHost = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
        return "\(scheme.rawValue)://\(shownHost):\(port)"
    }
}
