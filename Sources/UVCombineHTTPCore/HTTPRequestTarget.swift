#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HTTPTypes

/// A URL checked and taken apart for an HTTP/1.1 request: where to connect
/// and what to write on the request line and in `Host`.
///
/// Rules, each failing with a typed ``UVURLError``:
/// - The scheme must be `http` or `https` (any case): otherwise
///   `.unsupportedURL`. `http+unix` and `https+unix` (AsyncHTTPClient's
///   form) go through a Unix domain socket: the host is the socket's path,
///   percent-encoded (`http+unix://%2Ftmp%2Fapp.sock/status`); the scheme
///   is then `http` or `https`, ``socketPath`` the path, the `Host` field
///   `localhost`, and a port is ignored.
/// - A host is required (`.badURL`). Host names are ASCII letters, digits,
///   `-`, `.`, `_` and `~` (an internationalised name must be given in its
///   punycode form); IPv4 addresses; IPv6 literals in brackets, with an
///   optional zone (`[fe80::1%25eth0]`). Host names and IPv6 addresses are
///   lowercased (zones keep their case).
/// - The port must be 1...65535; a missing port is the scheme's default
///   (80, 443), which is then left out of the `Host` field.
/// - User info (`http://user:password@host/`) is refused with `.badURL`:
///   this client has no authentication support, and silently sending or
///   silently dropping credentials would both surprise. Put an
///   `Authorization` field on the request instead.
/// - CR, LF or NUL anywhere in the URL string, or in the decoded host, is
///   refused with `.badURL`. (``HTTPURLReference`` percent-encodes what a
///   URL may not hold, as Foundation's `URL(string:)` does; ``init(string:)``
///   checks the string first so raw CR and LF are refused, not repaired.)
/// - The request target is the percent-encoded path and query (`/` when
///   the path is empty); the fragment is never sent.
///
/// ```swift
/// let target = try HTTPRequestTarget(string: "http://[::1]:8080/search?q=uv")
/// print(target.host)      // Prints: "::1"
/// print(target.authority) // Prints: "[::1]:8080"
/// print(target.target)    // Prints: "/search?q=uv"
/// let request = target.makeRequest(method: .get)
/// ```
///
/// Threading: a value type; `Sendable`.
public struct HTTPRequestTarget: Sendable, Hashable, CustomStringConvertible {
    /// The URL as parsed (invalid bytes percent-encoded), for resolving
    /// relative redirects.
    public let reference: HTTPURLReference
    /// `http` or `https`, lowercased.
    public let scheme: HTTPScheme
    /// The host to connect to: a lowercased name, an IPv4 address, or a
    /// lowercased IPv6 address without brackets (its zone included, as given).
    public let host: String
    /// The port to connect to (the scheme's default when the URL has none).
    public let port: Int
    /// The `Host` field: the host (IPv6 in brackets, without its zone),
    /// then `:port` unless it is the default.
    public let authority: String
    /// The origin-form request target: path and query, percent-encoded.
    public let target: String
    /// The Unix domain socket an `http+unix` or `https+unix` URL names, or
    /// nil.
    public let socketPath: String?

    /// The pool key: scheme, host and port (and the socket path). Made
    /// once here: a key hashes its fields when it is made, which cost
    /// about 900 instructions per request when every request made it
    /// (callgrind, issue 17); a target is made once per publisher.
    public let key: ConnectionKey

    /// Checks `string` for CR, LF and NUL, then parses it as a URL.
    ///
    /// - Throws: `.badURL` or `.unsupportedURL`; see the type's rules.
    public init(string: String) throws(UVURLError) {
        try Self.refuseControlBytes(string.utf8, place: "URL")
        guard let reference = HTTPURLReference(parsing: string) else {
            throw UVURLError(.badURL, detail: "not a valid URL")
        }
        try self.init(reference: reference)
    }

    /// Checks and takes apart a parsed URL (an absolute one: a relative
    /// reference has no scheme and fails with `.unsupportedURL`).
    ///
    /// - Throws: `.badURL` or `.unsupportedURL`; see the type's rules.
    public init(reference url: HTTPURLReference) throws(UVURLError) {
        // Each part rather than `url.description`, which built the whole
        // URL again (one string, about 2,400 instructions; issue 32).
        try Self.refuseControlBytes(in: url)
        guard let rawScheme = url.scheme, !rawScheme.isEmpty else {
            throw UVURLError(.unsupportedURL, detail: "URL has no scheme")
        }
        var schemeName = Self.lowercased(rawScheme)
        let isUnix = schemeName.hasSuffix("+unix")
        if isUnix { schemeName.removeLast(5) }
        guard let scheme = HTTPScheme(rawValue: schemeName) else {
            throw UVURLError(
                .unsupportedURL,
                detail: "scheme \(HTTPRequestValidation.quoted(rawScheme)) is not http or https"
            )
        }
        guard let parts = url.authorityParts else {
            throw UVURLError(.badURL, detail: "URL has no host")
        }
        if parts.userInfo != nil {
            throw UVURLError(.badURL, detail: "user info in URL is not supported")
        }
        guard let decodedHost = HTTPURLReference.percentDecoded(parts.host) else {
            throw UVURLError(.badURL, detail: "not a valid URL")
        }
        guard !decodedHost.isEmpty else {
            throw UVURLError(.badURL, detail: "URL has no host")
        }
        try Self.refuseControlBytes(decodedHost.utf8, place: "host")
        if isUnix {
            let target = Self.originForm(url)
            try HTTPRequestValidation.validateTarget(target)
            self.reference = url
            self.scheme = scheme
            self.host = "localhost"
            self.port = scheme.defaultPort
            self.authority = "localhost"
            self.target = target
            self.socketPath = decodedHost
            key = ConnectionKey(scheme: scheme, host: "localhost", port: scheme.defaultPort, socketPath: decodedHost)
            return
        }
        let port = parts.port ?? scheme.defaultPort
        guard (1...65535).contains(port) else {
            throw UVURLError(.badURL, detail: "port \(port) is out of range")
        }

        let host: String
        var hostForHeader: String
        if decodedHost.utf8.contains(UInt8(ascii: ":")) {
            // An IPv6 literal (the parser strips the brackets). The address
            // is lowercased, so `[FE80::1]` and `[fe80::1]` share a pool key
            // (found by the RequestValidationFuzzer); the zone is an
            // interface name and keeps its case.
            try Self.checkIPv6(decodedHost)
            let parts = decodedHost.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false)
            let address = parts[0].lowercased()
            host = parts.count == 2 ? address + "%" + parts[1] : address
            hostForHeader = "[" + address + "]"
        } else {
            try Self.checkHostName(decodedHost)
            host = Self.lowercased(decodedHost)
            hostForHeader = host
        }
        if port != scheme.defaultPort {
            hostForHeader += ":\(port)"
        }

        let target = Self.originForm(url)
        try HTTPRequestValidation.validateTarget(target)

        self.reference = url
        self.scheme = scheme
        self.host = host
        self.port = port
        self.authority = hostForHeader
        self.target = target
        self.socketPath = nil
        key = ConnectionKey(scheme: scheme, host: host, port: port)
    }

    /// A request for this target: the method, `scheme`, `authority` and
    /// `path` (the request target) set, and the given fields.
    ///
    /// ```swift
    /// var fields = HTTPFields()
    /// fields[.accept] = "application/json"
    /// let request = try HTTPRequestTarget(string: "http://example.com/a")
    ///     .makeRequest(method: .get, headerFields: fields)
    /// ```
    public func makeRequest(method: HTTPRequest.Method = .get, headerFields: HTTPFields = [:]) -> HTTPRequest {
        HTTPRequest(method: method, scheme: scheme.rawValue, authority: authority, path: target, headerFields: headerFields)
    }

    /// `scheme://authority/target`; `scheme+unix://` and the
    /// percent-encoded socket path for a Unix domain socket.
    public var description: String {
        if let socketPath {
            return "\(scheme.rawValue)+unix://\(ConnectionKey.percentEncoded(socketPath))\(target)"
        }
        return "\(scheme.rawValue)://\(authority)\(target)"
    }

    // MARK: Checks

    /// Path and query, `/` for an empty path; never the fragment.
    private static func originForm(_ url: HTTPURLReference) -> String {
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        return target
    }

    /// ``refuseControlBytes(_:place:)`` over the parts of `url` (what its
    /// description is made of, between ASCII delimiters).
    private static func refuseControlBytes(in url: HTTPURLReference) throws(UVURLError) {
        if let scheme = url.scheme { try refuseControlBytes(scheme.utf8, place: "URL") }
        if let authority = url.authority { try refuseControlBytes(authority.utf8, place: "URL") }
        try refuseControlBytes(url.path.utf8, place: "URL")
        if let query = url.query { try refuseControlBytes(query.utf8, place: "URL") }
        if let fragment = url.fragment { try refuseControlBytes(fragment.utf8, place: "URL") }
    }

    private static func refuseControlBytes(_ bytes: String.UTF8View, place: String) throws(UVURLError) {
        // The common case in one pass over contiguous bytes.
        if HTTPRequestValidation.allBytes(of: String(bytes), satisfy: { $0 != 0x0D && $0 != 0x0A && $0 != 0x00 }) {
            return
        }
        for byte in bytes {
            switch byte {
            case 0x0D: throw UVURLError(.badURL, detail: "CR in \(place)")
            case 0x0A: throw UVURLError(.badURL, detail: "LF in \(place)")
            case 0x00: throw UVURLError(.badURL, detail: "NUL in \(place)")
            default: continue
            }
        }
    }

    /// `text` lowercased; itself, without a copy, when it has no ASCII
    /// capital (schemes and most hosts).
    private static func lowercased(_ text: String) -> String {
        text.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) ? text.lowercased() : text
    }

    /// Letters, digits, `-`, `.`, `_`, `~`: DNS names and IPv4 addresses.
    private static func checkHostName(_ host: String) throws(UVURLError) {
        for byte in host.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                continue
            case 0x80...:
                throw UVURLError(.badURL, detail: "non-ASCII host (give an internationalised name in punycode)")
            default:
                throw UVURLError(
                    .badURL,
                    detail: "invalid character \(HTTPRequestValidation.quoted(String(decoding: [byte], as: UTF8.self))) in host"
                )
            }
        }
    }

    /// An IPv6 address (`inet_pton` decides), then an optional `%zone` of
    /// letters, digits, `-`, `_` and `.`.
    private static func checkIPv6(_ host: String) throws(UVURLError) {
        let parts = host.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false)
        var address = in6_addr()
        guard inet_pton(AF_INET6, String(parts[0]), &address) == 1 else {
            throw UVURLError(.badURL, detail: "invalid IPv6 address literal")
        }
        if parts.count == 2 {
            let zone = parts[1].utf8
            let valid = !zone.isEmpty && zone.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                    true
                default:
                    false
                }
            }
            if !valid { throw UVURLError(.badURL, detail: "invalid IPv6 zone") }
        }
    }
}

/// The two schemes this client speaks.
///
/// ```swift
/// print(HTTPScheme.http.defaultPort)  // Prints: "80"
/// print(HTTPScheme(rawValue: "https") == .https) // Prints: "true"
/// ```
public enum HTTPScheme: String, Sendable, Hashable, CustomStringConvertible {
    /// Plain HTTP/1.1 over TCP; default port 80.
    case http
    /// HTTP/1.1 over TLS; default port 443.
    case https

    /// 80 or 443.
    public var defaultPort: Int {
        switch self {
        case .http: 80
        case .https: 443
        }
    }

    /// `http` or `https`.
    public var description: String { rawValue }
}
