/// An RFC 6265 cookie store as a pure value: `Set-Cookie` fields in, a
/// `Cookie` field out, with no I/O and no clock. Every call that depends
/// on time takes `now`, in seconds since the Unix epoch, from the caller.
///
/// The rules (docs/cookies.md): parsing by section 5.2 (``SetCookie``),
/// storage by 5.3 (host-only cookies, replacement by name, domain and
/// path keeping the creation time, deletion by an expired cookie), the
/// `Cookie` field by 5.4 (Secure cookies only to a secure context, longer
/// paths first, then older cookies), limits by 6.1 (``Limits``), and a
/// public-suffix policy without a suffix list
/// (``additionalPublicSuffixes``). Two rules of RFC 6265bis are applied
/// too: a Secure cookie is refused from a request that is not a secure
/// context, and such a request cannot shadow a Secure cookie.
///
/// Cookies are kept by their domain field, so a request looks up only
/// its host and that host's parent domains.
///
/// Threading: a value type; not shared. ``UVHTTPCookieStorage`` is the
/// locked, session-wide store around it.
///
/// ```swift
/// var store = CookieStore()
/// let url = CookieRequestURL(scheme: "https", host: "www.example.com", path: "/docs/a")
/// store.receive(setCookie: "lang=en; Domain=example.com; Path=/", from: url, now: 1_000)
/// store.receive(setCookie: "sid=1; Secure; HttpOnly", from: url, now: 1_000)
/// print(store.cookieHeader(for: url, now: 1_001)!) // Prints: "sid=1; lang=en"
/// ```
public struct CookieStore: Sendable {
    /// The limits in force; lowering them takes effect at the next store.
    public var limits: Limits
    /// Domains treated as public suffixes besides every single-label
    /// domain (lowercased, no leading dot): for example `co.uk` or
    /// `github.io`. Cookies cannot be set for these except host-only by
    /// the host itself.
    public var additionalPublicSuffixes: Set<String>

    /// The cookies, by their domain field; each list in no set order.
    internal var byDomain: [String: [UVHTTPCookie]] = [:]
    /// How many cookies ``byDomain`` holds.
    public internal(set) var count = 0
    /// The creation index the next new cookie gets.
    internal var nextCreationIndex: UInt64 = 1

    /// An empty store.
    ///
    /// ```swift
    /// var store = CookieStore(limits: .init(cookiesPerDomain: 50), additionalPublicSuffixes: ["co.uk"])
    /// ```
    public init(limits: Limits = Limits(), additionalPublicSuffixes: Set<String> = []) {
        self.limits = limits
        self.additionalPublicSuffixes = additionalPublicSuffixes
    }

    /// Every cookie, expired ones included until the next call that
    /// removes them, oldest first (creation order).
    public var cookies: [UVHTTPCookie] {
        byDomain.values.joined().sorted { $0.creationIndex < $1.creationIndex }
    }

    /// Whether the store holds no cookie.
    public var isEmpty: Bool { count == 0 }

    /// Removes every cookie.
    public mutating func removeAll() {
        byDomain = [:]
        count = 0
    }

    /// Removes the cookies whose expiry is before `now`.
    public mutating func removeExpired(now: Int64) {
        removeAll { $0.isExpired(at: now) }
    }

    /// Removes the session cookies (those without an expiry), as ending a
    /// browsing session does (curl's `-j`).
    public mutating func removeSessionCookies() {
        removeAll { $0.isSession }
    }

    /// Removes the cookies for which `shouldRemove` is true.
    ///
    /// ```swift
    /// store.removeAll { $0.domain == "example.com" }
    /// ```
    public mutating func removeAll(where shouldRemove: (UVHTTPCookie) throws -> Bool) rethrows {
        for key in Array(byDomain.keys) {
            var list = byDomain.removeValue(forKey: key)!
            let before = list.count
            try list.removeAll(where: shouldRemove)
            count -= before - list.count
            if !list.isEmpty { byDomain[key] = list }
        }
    }

    /// Stores `cookie` under the rules of section 5.3 steps 11–12: it
    /// replaces a cookie with the same name, domain and path, keeping that
    /// one's creation time; an expired cookie only deletes. Then the
    /// limits apply.
    internal mutating func place(_ cookie: UVHTTPCookie, now: Int64) -> Outcome {
        var cookie = cookie
        var replaced = false
        if let index = byDomain[cookie.domain]?.firstIndex(where: { $0.name == cookie.name && $0.path == cookie.path }) {
            let old = byDomain[cookie.domain]!.remove(at: index)
            if byDomain[cookie.domain]!.isEmpty { byDomain[cookie.domain] = nil }
            count -= 1
            cookie.creationTime = old.creationTime
            cookie.creationIndex = old.creationIndex
            replaced = true
        } else {
            cookie.creationIndex = nextCreationIndex
            nextCreationIndex += 1
        }
        if cookie.isExpired(at: now) { return replaced ? .deleted : .discardedExpired }
        byDomain[cookie.domain, default: []].append(cookie)
        count += 1
        enforceLimits(domain: cookie.domain, now: now)
        return replaced ? .replaced : .stored
    }
}
