public import HTTPTypes

extension CookieStore {
    /// Stores what one `Set-Cookie` field value of a response to `url`
    /// says, at `now` (seconds since the epoch), by RFC 6265 section 5.3.
    ///
    /// ```swift
    /// let url = CookieRequestURL(scheme: "http", host: "a.example.com", path: "/")
    /// print(store.receive(setCookie: "x=1; Domain=com", from: url, now: 0) == .rejected(.publicSuffix)) // Prints: "true"
    /// ```
    @discardableResult
    public mutating func receive(setCookie line: some StringProtocol, from url: CookieRequestURL, now: Int64) -> Outcome {
        guard let parsed = SetCookie(parsing: line) else { return .rejected(.malformed) }
        return receive(parsed, from: url, now: now)
    }

    /// Stores every `Set-Cookie` field of `fields` (a response's), in
    /// order; returns each one's outcome.
    ///
    /// ```swift
    /// var fields = HTTPFields()
    /// fields.append(HTTPField(name: .setCookie, value: "a=1"))
    /// print(store.receive(fields, from: url, now: 0) == [.stored]) // Prints: "true"
    /// ```
    @discardableResult
    public mutating func receive(_ fields: HTTPFields, from url: CookieRequestURL, now: Int64) -> [Outcome] {
        fields[values: .setCookie].map { receive(setCookie: $0, from: url, now: now) }
    }

    /// Stores a parsed `Set-Cookie` of a response to `url` at `now`.
    @discardableResult
    public mutating func receive(_ setCookie: SetCookie, from url: CookieRequestURL, now: Int64) -> Outcome {
        guard !setCookie.name.isEmpty else { return .rejected(.malformed) }
        guard !url.host.isEmpty else { return .rejected(.noHost) }
        guard setCookie.name.utf8.count + setCookie.value.utf8.count <= limits.maximumNameValueBytes else {
            return .rejected(.tooLarge)
        }
        guard !CookieASCII.containsControl(setCookie.name), !CookieASCII.containsControl(setCookie.value) else {
            return .rejected(.controlCharacter)
        }
        // Step 3: Max-Age wins over Expires; zero or less is the earliest time.
        let expires: Int64?
        if let maxAge = setCookie.maxAge {
            expires = maxAge <= 0 ? Int64.min : now.addingReportingOverflow(maxAge).overflow ? Int64.max : now + maxAge
        } else {
            expires = setCookie.expires
        }
        // Steps 4–6, with the public-suffix policy and IP hosts host-only.
        var domainAttribute = setCookie.domain ?? ""
        if !domainAttribute.isEmpty, CookieDomain.isPublicSuffix(domainAttribute, additional: additionalPublicSuffixes) {
            guard domainAttribute == url.host else { return .rejected(.publicSuffix) }
            domainAttribute = ""
        }
        let isHostOnly: Bool
        let domain: String
        if domainAttribute.isEmpty || (url.isIPAddress && domainAttribute == url.host) {
            isHostOnly = true
            domain = url.host
        } else {
            guard !url.isIPAddress, CookieDomain.matches(host: url.host, domain: domainAttribute) else {
                return .rejected(.domainMismatch)
            }
            isHostOnly = false
            domain = domainAttribute
        }
        let path = setCookie.path ?? CookiePath.defaultPath(url.path)
        if !url.isSecureContext {
            if setCookie.isSecure { return .rejected(.secureFromInsecureContext) }
            if shadowsSecureCookie(name: setCookie.name, domain: domain, path: path) {
                return .rejected(.wouldShadowSecureCookie)
            }
        }
        let cookie = UVHTTPCookie(name: setCookie.name, value: setCookie.value, domain: domain, isHostOnly: isHostOnly,
                                  path: path, expires: expires, isSecure: setCookie.isSecure,
                                  isHTTPOnly: setCookie.isHTTPOnly, sameSite: setCookie.sameSite, creationTime: now)
        return place(cookie, now: now)
    }

    /// Stores a cookie made elsewhere (a jar's line, a copy from another
    /// store) by the same replacement and limit rules, at `now`. Its
    /// domain is lowercased and loses a leading dot; a cookie with an
    /// empty name or domain, a path not starting with `/`, a control
    /// character or too many bytes is refused.
    ///
    /// ```swift
    /// for cookie in NetscapeCookieJar.parse(text, now: now).cookies { store.insert(cookie, now: now) }
    /// ```
    @discardableResult
    public mutating func insert(_ cookie: UVHTTPCookie, now: Int64) -> Outcome {
        var cookie = cookie
        cookie.domain = CookieDomain.canonicalHost(cookie.domain.first == "." ? cookie.domain.dropFirst() : cookie.domain[...])
        guard !cookie.name.isEmpty, !cookie.domain.isEmpty, cookie.path.first == "/" else { return .rejected(.malformed) }
        guard cookie.name.utf8.count + cookie.value.utf8.count <= limits.maximumNameValueBytes else {
            return .rejected(.tooLarge)
        }
        guard !CookieASCII.containsControl(cookie.name), !CookieASCII.containsControl(cookie.value) else {
            return .rejected(.controlCharacter)
        }
        if CookieDomain.isIPAddress(cookie.domain) { cookie.isHostOnly = true }
        return place(cookie, now: now)
    }

    /// RFC 6265bis "leave secure cookies alone": whether a Secure cookie
    /// named `name` is stored whose domain domain-matches `domain` or the
    /// reverse, and whose path `path` path-matches.
    private func shadowsSecureCookie(name: String, domain: String, path: String) -> Bool {
        for (key, list) in byDomain
        where CookieDomain.matches(host: key, domain: domain) || CookieDomain.matches(host: domain, domain: key) {
            for cookie in list where cookie.isSecure && cookie.name == name
                && CookiePath.matches(requestPath: path, cookiePath: cookie.path) {
                return true
            }
        }
        return false
    }
}
