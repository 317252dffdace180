/// What makes two requests able to share a connection: scheme, host and
/// port, the Unix domain socket path when the connection goes through
/// one, and the proxy when it goes through one. The pool keeps
/// connections, limits and waiting queues per key.
///
/// Through a proxy (``UVURLSession/ProxyConfiguration``): an `http` key's
/// host and port are the proxy's (one connection to the proxy carries
/// requests for any origin); an `https` key's are the origin's (a tunnel
/// leads to one origin), with the proxy beside them.
///
/// ```swift
/// let key = try HTTPRequestTarget(string: "http://example.com/a").key
/// print(key) // Prints: "http://example.com:80"
/// ```
///
/// Threading: a value type; `Sendable`.
public struct ConnectionKey: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`.
    public var scheme: HTTPScheme { didSet { hash = Self.hash(of: self) } }
    /// The host as ``HTTPRequestTarget/host`` gives it (lowercased name or
    /// bare IPv6 address).
    public var host: String { didSet { hash = Self.hash(of: self) } }
    /// The TCP port.
    public var port: Int { didSet { hash = Self.hash(of: self) } }
    /// The Unix domain socket connected to instead of `host:port`
    /// (`http+unix://` URLs, ``UVURLSession/Configuration/unixSocketPath``),
    /// or nil for TCP.
    public var socketPath: String? { didSet { hash = Self.hash(of: self); hasOptionals = socketPath != nil || proxy != nil } }
    /// The proxy the connection goes through, or nil for a direct one.
    public var proxy: HTTPProxy? { didSet { hash = Self.hash(of: self); hasOptionals = socketPath != nil || proxy != nil } }
    /// Which HTTP version the connection may speak (normalized for the
    /// scheme: ``HTTPVersionPreference/normalized(for:)``). HTTP/1.1 by
    /// default; the session sets it from its configuration or the
    /// request's options (issue 33).
    public var httpVersion: HTTPVersionPreference = .http1_1 { didSet { hash = Self.hash(of: self) } }

    /// The fields' hash, computed when the key is made or changed. Why: the
    /// pool and the session look keys up in dictionaries several times per
    /// request; with the hash stored, a lookup hashes one `Int` instead of
    /// the host string again, and unequal keys usually differ in it
    /// (callgrind, issue 17). Kept inline rather than in a shared box,
    /// which would also make copies cheaper but costs an allocation per key
    /// made, i.e. per request.
    private var hash = 0
    /// Whether ``socketPath`` or ``proxy`` is set. Why: `==` (run by every
    /// pool lookup) then compares them only when one is; even testing a
    /// nil `Proxy?` copies it through generic value witnesses, about 150
    /// instructions each time (callgrind, issue 17).
    private var hasOptionals = false

    /// Creates a key.
    ///
    /// ```swift
    /// let key = ConnectionKey(scheme: .http, host: "localhost", port: 80, socketPath: "/tmp/app.sock")
    /// print(key) // Prints: "http+unix://%2Ftmp%2Fapp.sock (localhost:80)"
    /// ```
    public init(scheme: HTTPScheme, host: String, port: Int, socketPath: String? = nil,
                proxy: HTTPProxy? = nil) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.socketPath = socketPath
        self.proxy = proxy
        hash = Self.hash(of: self)
        hasOptionals = socketPath != nil || proxy != nil
    }

    private static func hash(of key: ConnectionKey) -> Int {
        var hasher = Hasher()
        hasher.combine(key.scheme)
        hasher.combine(key.host)
        hasher.combine(key.port)
        hasher.combine(key.socketPath)
        hasher.combine(key.proxy)
        hasher.combine(key.httpVersion)
        return hasher.finalize()
    }

    /// Whether the two keys name the same connections: equal fields (the
    /// stored hashes first, which tells most unequal keys apart at once).
    ///
    /// ```swift
    /// let a = ConnectionKey(scheme: .http, host: "a", port: 80)
    /// print(a == ConnectionKey(scheme: .http, host: "a", port: 80)) // Prints: "true"
    /// ```
    public static func == (lhs: ConnectionKey, rhs: ConnectionKey) -> Bool {
        guard lhs.hash == rhs.hash, lhs.scheme == rhs.scheme, lhs.port == rhs.port,
              lhs.httpVersion == rhs.httpVersion, lhs.host == rhs.host else {
            return false
        }
        if !lhs.hasOptionals && !rhs.hasOptionals { return true }
        return lhs.socketPath == rhs.socketPath && lhs.proxy == rhs.proxy
    }

    /// Feeds the hash computed when the key was made.
    ///
    /// ```swift
    /// var hasher = Hasher()
    /// ConnectionKey(scheme: .http, host: "a", port: 80).hash(into: &hasher)
    /// ```
    public func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }

    /// The hash a dictionary uses: the stored hash, mixed with the seed
    /// (``ConnectionPoolStateMachine/idHash(_:seed:)``), without hashing the
    /// strings again.
    ///
    /// ```swift
    /// let h = ConnectionKey(scheme: .http, host: "a", port: 80)._rawHashValue(seed: 0)
    /// ```
    public func _rawHashValue(seed: Int) -> Int {
        ConnectionPoolStateMachine.idHash(hash, seed: seed)
    }

    /// The key for `target` routed through `proxy`: per proxy for `http`
    /// (absolute-form requests), per proxy and origin for `https`
    /// (tunnels).
    package init(target: HTTPRequestTarget, proxy: HTTPProxy) {
        switch target.scheme {
        case .http: self.init(scheme: .http, host: proxy.host, port: proxy.port, proxy: proxy)
        case .https: self.init(scheme: .https, host: target.host, port: target.port, proxy: proxy)
        }
    }

    /// Whether requests on this connection are written in absolute form
    /// for a forwarding proxy (`http` through a proxy).
    package var isForwardProxied: Bool {
        proxy != nil && scheme == .http && socketPath == nil
    }

    /// `scheme://host:port`, with brackets around an IPv6 host; through a
    /// Unix domain socket, `scheme+unix://` and the percent-encoded path,
    /// then the host and port in parentheses; through a proxy, `http via
    /// <proxy>` or `https://host:port via <proxy>`. A key that may speak
    /// HTTP/2 ends in ` (h2c)` or ` (automatic)`.
    public var description: String {
        let base = baseDescription
        return httpVersion == .http1_1 ? base : "\(base) (\(httpVersion))"
    }

    private var baseDescription: String {
        if let socketPath {
            return "\(scheme.rawValue)+unix://\(Self.percentEncoded(socketPath)) (\(host):\(port))"
        }
        if let proxy, scheme == .http {
            return "http via \(proxy)"
        }
        let shownHost = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
        let via = proxy.map { " via \($0)" } ?? ""
        return "\(scheme.rawValue)://\(shownHost):\(port)\(via)"
    }

    /// `path` with every byte but letters, digits, `-`, `.`, `_` and `~`
    /// percent-encoded, as an `http+unix://` URL's host.
    internal static func percentEncoded(_ path: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
