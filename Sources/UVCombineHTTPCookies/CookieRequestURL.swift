public import HTTPTypes

/// What the cookie rules need of a request URL: its scheme, its canonical
/// host and its path (without query or fragment).
///
/// A request is a *secure context* (Secure cookies are set from it and
/// sent to it) when its scheme is `https` or `wss`, or its host is
/// `localhost`, `127.0.0.1` or `::1`, as curl 7.88 and browsers treat
/// loopback (docs/cookies.md).
///
/// Threading: a value type; `Sendable`.
///
/// ```swift
/// let url = CookieRequestURL(scheme: "HTTPS", host: "WWW.Example.com", path: "/a/b?q=1")
/// print(url.host, url.path, url.isSecureContext) // Prints: "www.example.com /a/b true"
/// ```
public struct CookieRequestURL: Sendable, Hashable {
    /// The scheme, lowercased.
    public let scheme: String
    /// The host, canonical: lowercased, IPv6 without brackets, no port.
    public let host: String
    /// The path, without query and fragment; `/` when empty.
    public let path: String
    /// Whether the host is an IP address (its cookies are all host-only).
    public let isIPAddress: Bool

    /// A request URL from its parts as the caller has them. `host` is a
    /// host name or address without a port (brackets around IPv6 are
    /// allowed); `path` may carry a query, which is dropped.
    public init(scheme: String, host: String, path: String) {
        self.scheme = CookieASCII.lowercased(scheme)
        self.host = CookieDomain.canonicalHost(host)
        self.path = CookiePath.requestPath(path)
        self.isIPAddress = CookieDomain.isIPAddress(self.host)
    }

    /// The request URL of an `HTTPRequest`: its scheme, the host of its
    /// authority (user information and port dropped) and its path. `nil`
    /// when the request has no scheme or no authority.
    ///
    /// ```swift
    /// let request = HTTPRequest(method: .get, scheme: "http", authority: "a.example:8080", path: "/x?y")
    /// print(CookieRequestURL(request)!.host) // Prints: "a.example"
    /// ```
    public init?(_ request: HTTPRequest) {
        guard let scheme = request.scheme, let authority = request.authority else { return nil }
        var host = Substring(authority)
        if let at = host.utf8.lastIndex(of: UInt8(ascii: "@")) { host = host[host.index(after: at)...] }
        if host.first == "[" {
            guard let close = host.utf8.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            host = host[...close]
        } else if let colon = host.utf8.firstIndex(of: UInt8(ascii: ":")) {
            host = host[..<colon]
        }
        guard !host.isEmpty else { return nil }
        self.init(scheme: scheme, host: String(host), path: request.path ?? "/")
    }

    /// Whether Secure cookies may be set from and sent to this URL.
    public var isSecureContext: Bool {
        scheme == "https" || scheme == "wss" || host == "localhost" || host == "127.0.0.1" || host == "::1"
    }
}
