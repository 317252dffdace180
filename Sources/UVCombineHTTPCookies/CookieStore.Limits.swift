extension CookieStore {
    /// How much a store keeps (RFC 6265 section 6.1 asks for at least
    /// 4096 bytes per cookie, 50 cookies per domain and 3000 in all).
    ///
    /// The defaults are Chromium's and Firefox's: 180 cookies per domain
    /// field, 3000 in all, 4096 bytes of name and value per cookie (RFC
    /// 6265bis). Why above RFC's minimum of 50: sites that work in
    /// browsers set more than 50 on one domain, and a client that evicts
    /// sooner logs them out. A cookie over the size limit is refused; over
    /// a count limit, expired cookies go first, then those sent or stored
    /// least recently (section 5.3 step 12). The per-domain count is by
    /// the cookie's domain field (without a suffix list there is no
    /// registrable domain to group by).
    ///
    /// Threading: a value type; `Sendable`.
    ///
    /// ```swift
    /// let limits = CookieStore.Limits(cookiesPerDomain: 50, totalCookies: 1000)
    /// ```
    public struct Limits: Sendable, Hashable {
        /// Cookies kept per domain field; at least 1.
        public var cookiesPerDomain: Int
        /// Cookies kept in all; at least 1.
        public var totalCookies: Int
        /// Bytes of name plus value (UTF-8) a cookie may have.
        public var maximumNameValueBytes: Int

        /// Limits with the given values (the defaults are browsers').
        public init(cookiesPerDomain: Int = 180, totalCookies: Int = 3000, maximumNameValueBytes: Int = 4096) {
            self.cookiesPerDomain = max(1, cookiesPerDomain)
            self.totalCookies = max(1, totalCookies)
            self.maximumNameValueBytes = maximumNameValueBytes
        }
    }

    /// Section 5.3 step 12 after a cookie was stored under `domain`:
    /// expired cookies first, then the least recently used (ties broken
    /// by creation order).
    internal mutating func enforceLimits(domain: String, now: Int64) {
        if let list = byDomain[domain], list.count > limits.cookiesPerDomain {
            removeExpired(now: now)
            while let list = byDomain[domain], list.count > limits.cookiesPerDomain {
                let victim = list.indices.min { Self.evictsBefore(list[$0], list[$1]) }!
                byDomain[domain]!.remove(at: victim)
                count -= 1
            }
        }
        if count > limits.totalCookies {
            removeExpired(now: now)
            while count > limits.totalCookies {
                var best: (key: String, index: Int)?
                for (key, list) in byDomain {
                    for index in list.indices {
                        if let current = best, !Self.evictsBefore(list[index], byDomain[current.key]![current.index]) { continue }
                        best = (key, index)
                    }
                }
                guard let best else { break }
                byDomain[best.key]!.remove(at: best.index)
                if byDomain[best.key]!.isEmpty { byDomain[best.key] = nil }
                count -= 1
            }
        }
    }

    /// Whether `a` is evicted before `b`: earlier last access, then older.
    internal static func evictsBefore(_ a: UVHTTPCookie, _ b: UVHTTPCookie) -> Bool {
        (a.lastAccessTime, a.creationIndex) < (b.lastAccessTime, b.creationIndex)
    }
}
