/// One stored cookie: the record of RFC 6265 section 5.3, after the store
/// accepted a `Set-Cookie` field or a line of a cookie jar.
///
/// Times are seconds since the Unix epoch, as the caller's clock gave them
/// to the store (the store never reads a clock). `expires == nil` is a
/// session cookie (RFC 6265's persistent-flag false); a jar writes it with
/// expiry `0`.
///
/// Threading: a value type; `Sendable`.
///
/// ```swift
/// var store = CookieStore()
/// let url = CookieRequestURL(scheme: "https", host: "example.com", path: "/")
/// store.receive(setCookie: "id=42; Path=/; Secure", from: url, now: 1_700_000_000)
/// let cookie = store.cookies[0]
/// print(cookie.name, cookie.domain, cookie.isHostOnly) // Prints: "id example.com true"
/// ```
public struct UVHTTPCookie: Sendable, Hashable, CustomStringConvertible {
    /// The cookie's name (never empty).
    public var name: String
    /// The cookie's value, as received (no quotes removed, as RFC 6265).
    public var value: String
    /// The canonical domain: lowercased, without a leading dot. For a
    /// host-only cookie, the host that set it.
    public var domain: String
    /// Whether the cookie goes only to ``domain`` itself (no `Domain`
    /// attribute was given, or the host is an IP address) rather than to
    /// its subdomains too.
    public var isHostOnly: Bool
    /// The cookie's path (starts with `/`).
    public var path: String
    /// The expiry, in seconds since the epoch; `nil` for a session cookie.
    public var expires: Int64?
    /// Sent only over secure connections (the `Secure` attribute).
    public var isSecure: Bool
    /// Not for non-HTTP APIs (the `HttpOnly` attribute); kept and written
    /// to jars as `#HttpOnly_`.
    public var isHTTPOnly: Bool
    /// The `SameSite` attribute, kept as given; this store does not
    /// enforce it (a client has no "site for cookies", see docs/cookies.md).
    public var sameSite: CookieSameSite?
    /// When the cookie was first stored (kept when a newer one replaces it).
    public var creationTime: Int64
    /// When the cookie was last stored or sent: the eviction order.
    public var lastAccessTime: Int64
    /// Creation order within one store: breaks ties between equal
    /// creation times (the caller's clock has whole seconds). Kept on
    /// replacement, as ``creationTime``.
    package var creationIndex: UInt64

    /// A cookie with every field given. The store canonicalises nothing
    /// here: pass a lowercased ``domain`` without a leading dot and a path
    /// that starts with `/` (``CookieStore/insert(_:now:)`` checks both).
    ///
    /// ```swift
    /// let cookie = UVHTTPCookie(name: "a", value: "1", domain: "example.com", isHostOnly: true, path: "/",
    ///                           expires: nil, creationTime: 0)
    /// ```
    public init(name: String, value: String, domain: String, isHostOnly: Bool, path: String, expires: Int64?,
                isSecure: Bool = false, isHTTPOnly: Bool = false, sameSite: CookieSameSite? = nil,
                creationTime: Int64, lastAccessTime: Int64? = nil) {
        self.name = name
        self.value = value
        self.domain = domain
        self.isHostOnly = isHostOnly
        self.path = path
        self.expires = expires
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
        self.creationTime = creationTime
        self.lastAccessTime = lastAccessTime ?? creationTime
        self.creationIndex = 0
    }

    /// Whether the cookie is a session cookie (no expiry).
    public var isSession: Bool { expires == nil }

    /// Whether the cookie has expired at `now` (its expiry is in the past;
    /// a session cookie never expires by time).
    ///
    /// ```swift
    /// print(cookie.isExpired(at: 1_700_000_000)) // Prints: "false"
    /// ```
    public func isExpired(at now: Int64) -> Bool {
        guard let expires else { return false }
        return expires < now
    }

    /// `name=value; domain=…; path=…` and the flags, for logs and tests.
    public var description: String {
        var text = "\(name)=\(value); domain=\(isHostOnly ? "" : ".")\(domain); path=\(path)"
        if let expires { text += "; expires=\(expires)" }
        if isSecure { text += "; secure" }
        if isHTTPOnly { text += "; httponly" }
        if let sameSite { text += "; samesite=\(sameSite.rawValue)" }
        return text
    }
}
