/// An HTTP proxy: where it listens and, optionally, the credentials
/// sent to it with `Proxy-Authorization: Basic`.
///
/// `http` URLs go through it as absolute-form requests
/// (`GET http://example.com/a HTTP/1.1`), `https` URLs through a
/// `CONNECT example.com:443` tunnel with TLS to the origin inside it
/// (``ProxyConfiguration``). Only plain-HTTP proxies are spoken to:
/// not TLS to the proxy itself (`https://` proxy URLs), not SOCKS.
///
/// ```swift
/// let proxy = try UVURLSession.Proxy(url: "http://alice:secret@proxy.example:3128")
/// print(proxy) // Prints: "http://alice:***@proxy.example:3128"
/// let same = UVURLSession.Proxy(host: "proxy.example", port: 3128, username: "alice", password: "secret")
/// print(proxy == same) // Prints: "true"
/// ```
///
/// Named `UVURLSession.Proxy` in the session's API (a type alias): it
/// lives here, in the protocol core, because ``ConnectionKey`` (and so the
/// pool) tells connections through different proxies apart.
///
/// Threading: a value type; `Sendable`.
public struct HTTPProxy: Sendable, Hashable, CustomStringConvertible {
    /// The port used when a proxy URL has none: 1080, as curl.
    public static let defaultPort = 1080

    /// The proxy's host: a lowercased name, an IPv4 address, or an
    /// IPv6 address without brackets.
    public let host: String
    /// The proxy's TCP port.
    public let port: Int
    /// The user name sent to the proxy, or nil for no credentials.
    public let username: String?
    /// The password sent with ``username`` (empty when none was given).
    public let password: String?
    /// `Proxy-Authorization: Basic ...\r\n`, formed once, or empty.
    package let authorizationLine: [UInt8]

    /// A proxy at `host` and `port`, with credentials when `username`
    /// is given. The host is used as given (lowercased); use
    /// ``init(url:)`` to have it checked.
    ///
    /// ```swift
    /// let proxy = UVURLSession.Proxy(host: "127.0.0.1", port: 3128)
    /// ```
    public init(host: String, port: Int = HTTPProxy.defaultPort, username: String? = nil, password: String? = nil) {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.host = host
        self.port = port
        self.username = username
        self.password = username == nil ? nil : (password ?? "")
        if let username {
            let token = Base64.encoded(Array("\(username):\(password ?? "")".utf8))
            authorizationLine = Array("Proxy-Authorization: Basic \(token)\r\n".utf8)
        } else {
            authorizationLine = []
        }
    }

    /// Parses a proxy URL as curl's `-x` does: `[http://][user[:password]@]host[:port][/]`.
    /// A missing scheme means `http`, a missing port
    /// ``defaultPort`` (1080); user and password are percent-decoded.
    ///
    /// ```swift
    /// let proxy = try UVURLSession.Proxy(url: "localhost:3128")
    /// print(proxy.host, proxy.port) // Prints: "localhost 3128"
    /// ```
    ///
    /// - Throws: `.unsupportedURL` for a scheme other than `http`
    ///   (`https://`, `socks5://`, ...); `.badURL` for a URL without a
    ///   host, with a port out of range or with a host that is not a
    ///   valid name or address.
    public init(url string: String) throws(UVURLError) {
        // Spaces and tabs, as `trimmingCharacters(in: .whitespaces)` in
        // Foundation (not FoundationEssentials) trims from a setting.
        let trimmed = String(string.drop(while: \.isProxyBlank).reversed().drop(while: \.isProxyBlank).reversed())
        let full = trimmed.contains("://") ? trimmed : "http://" + trimmed
        let invalid = UVURLError(.badURL, detail: "proxy \(HTTPRequestValidation.quoted(string)) is not a valid URL")
        guard let reference = HTTPURLReference(parsing: full), let parts = reference.authorityParts else {
            throw invalid
        }
        let scheme = reference.scheme?.lowercased() ?? "http"
        guard scheme == "http" else {
            throw UVURLError(.unsupportedURL,
                             detail: "proxy scheme \(HTTPRequestValidation.quoted(scheme)) is not supported (only http:// proxies)")
        }
        let rawHost = parts.host
        guard !rawHost.isEmpty else {
            throw UVURLError(.badURL, detail: "proxy \(HTTPRequestValidation.quoted(string)) has no host")
        }
        var user: String?
        var password: String?
        if let userInfo = parts.userInfo {
            let pieces = userInfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard let decodedUser = HTTPURLReference.percentDecoded(String(pieces[0])) else { throw invalid }
            user = decodedUser
            if pieces.count == 2 {
                guard let decodedPassword = HTTPURLReference.percentDecoded(String(pieces[1])) else { throw invalid }
                password = decodedPassword
            }
        }
        let port = parts.port ?? Self.defaultPort
        // The host and port are checked as an http URL's are.
        let bracketed = rawHost.contains(":") && !rawHost.hasPrefix("[") ? "[\(rawHost)]" : rawHost
        let checked: HTTPRequestTarget
        do throws(UVURLError) {
            guard (1...65535).contains(port) else {
                throw UVURLError(.badURL, detail: "port \(port) is out of range")
            }
            checked = try HTTPRequestTarget(string: "http://\(bracketed):\(port)/")
        } catch {
            throw UVURLError(.badURL, detail: "proxy \(HTTPRequestValidation.quoted(string)): \(error.detail ?? error.code.description)")
        }
        self.init(host: checked.host, port: port, username: user, password: password)
    }

    /// `http://host:port`, with `user:***@` when credentials are set
    /// (the password is never shown).
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let user = username.map { "\($0):***@" } ?? ""
        return "http://\(user)\(shownHost):\(port)"
    }

    /// `host:port` as a request target or `Host` field (IPv6 in
    /// brackets).
    package var authority: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

extension Character {
    /// A space or tab (and the other horizontal white space Unicode names),
    /// what a proxy setting may be padded with.
    fileprivate var isProxyBlank: Bool {
        isWhitespace && !isNewline
    }
}
