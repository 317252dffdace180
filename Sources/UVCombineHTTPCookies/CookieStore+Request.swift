public import HTTPTypes

extension CookieStore {
    /// The cookies to send with a request to `url` at `now`, in the
    /// `Cookie` field's order (RFC 6265 section 5.4): longer paths first,
    /// then older cookies. Marks each as used at `now` (the eviction
    /// order) and drops expired cookies it meets.
    ///
    /// A cookie goes when its domain is the host (host-only cookies) or
    /// the host domain-matches it, the request path path-matches its path,
    /// and, when it is Secure, the request is a secure context.
    /// `SameSite` is not enforced (docs/cookies.md).
    ///
    /// ```swift
    /// let sent = store.cookies(for: url, now: now).map(\.name)
    /// ```
    public mutating func cookies(for url: CookieRequestURL, now: Int64) -> [UVHTTPCookie] {
        var selected: [UVHTTPCookie] = []
        var key = Substring(url.host)
        while true {
            let keyString = String(key)
            if var list = byDomain.removeValue(forKey: keyString) {
                let before = list.count
                list.removeAll { $0.isExpired(at: now) }
                count -= before - list.count
                for index in list.indices {
                    let cookie = list[index]
                    guard !cookie.isHostOnly || keyString == url.host,
                          !cookie.isSecure || url.isSecureContext,
                          CookiePath.matches(requestPath: url.path, cookiePath: cookie.path) else { continue }
                    list[index].lastAccessTime = now
                    selected.append(list[index])
                }
                if !list.isEmpty { byDomain[keyString] = list }
            }
            // Parent domains, label by label; an IP address has none.
            guard !url.isIPAddress, let dot = key.utf8.firstIndex(of: UInt8(ascii: ".")) else { break }
            key = key[key.index(after: dot)...]
            if key.isEmpty { break }
        }
        selected.sort {
            let (left, right) = ($0.path.utf8.count, $1.path.utf8.count)
            return left != right ? left > right : $0.creationIndex < $1.creationIndex
        }
        return selected
    }

    /// The `Cookie` field value for a request to `url` at `now`
    /// (`name=value; name2=value2`), or `nil` when no cookie applies. As
    /// ``cookies(for:now:)``.
    ///
    /// ```swift
    /// if let value = store.cookieHeader(for: url, now: now) { request.headerFields[.cookie] = value }
    /// ```
    public mutating func cookieHeader(for url: CookieRequestURL, now: Int64) -> String? {
        let list = cookies(for: url, now: now)
        guard !list.isEmpty else { return nil }
        var text = ""
        for cookie in list {
            if !text.isEmpty { text += "; " }
            text += cookie.name
            text += "="
            text += cookie.value
        }
        return text
    }

    /// The `Cookie` field for `request` at `now`, or `nil` when no cookie
    /// applies or the request has no scheme or authority.
    ///
    /// ```swift
    /// if let field = store.cookieField(for: request, now: now) { request.headerFields.append(field) }
    /// ```
    public mutating func cookieField(for request: HTTPRequest, now: Int64) -> HTTPField? {
        guard let url = CookieRequestURL(request), let value = cookieHeader(for: url, now: now) else { return nil }
        return HTTPField(name: .cookie, value: value)
    }
}
