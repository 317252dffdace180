extension CookieStore {
    /// What the store did with one `Set-Cookie` field or one inserted
    /// cookie.
    ///
    /// Threading: a value type; `Sendable`.
    ///
    /// ```swift
    /// let outcome = store.receive(setCookie: "a=1; Max-Age=0", from: url, now: 0)
    /// print(outcome == .discardedExpired) // Prints: "true" (nothing to delete)
    /// ```
    public enum Outcome: Sendable, Hashable {
        /// A new cookie was stored.
        case stored
        /// It replaced a cookie with the same name, domain and path.
        case replaced
        /// It was already expired and deleted the cookie it matched.
        case deleted
        /// It was already expired and matched nothing: nothing changed.
        case discardedExpired
        /// It was ignored entirely, for this reason.
        case rejected(Rejection)
    }

    /// Why a cookie was ignored entirely.
    public enum Rejection: Sendable, Hashable {
        /// The field has no `=` in its name-value pair, or an empty name
        /// (RFC 6265 section 5.2); or an inserted cookie had an empty name
        /// or domain, or a path not starting with `/`.
        case malformed
        /// Name and value together exceed ``Limits/maximumNameValueBytes``.
        case tooLarge
        /// The name or value holds a control character (tab included).
        case controlCharacter
        /// The `Domain` attribute is a public suffix other than the host.
        case publicSuffix
        /// The request host does not domain-match the `Domain` attribute
        /// (for an IP-address host: is not the same address).
        case domainMismatch
        /// The request URL has an empty host.
        case noHost
        /// A `Secure` cookie from a request that is not a secure context.
        case secureFromInsecureContext
        /// From a request that is not a secure context, a cookie that
        /// would shadow a stored Secure cookie of the same name (RFC
        /// 6265bis, "leave secure cookies alone").
        case wouldShadowSecureCookie
    }
}
