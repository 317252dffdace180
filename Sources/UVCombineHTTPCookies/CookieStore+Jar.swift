extension CookieStore {
    /// Adds the cookies of a jar's text (curl's Netscape format) in the
    /// file's creation order, as `curl -b FILE` does; returns what
    /// ``NetscapeCookieJar/parse(_:now:)`` found. Cookies the store refuses
    /// (``insert(_:now:)``) are left out.
    ///
    /// ```swift
    /// let contents = store.load(jar: text, now: now)
    /// print(contents.rejectedLines) // Prints: "[]"
    /// ```
    @discardableResult
    public mutating func load(jar text: String, now: Int64) -> NetscapeCookieJar.Contents {
        let contents = NetscapeCookieJar.parse(text, now: now)
        for cookie in contents.cookies { insert(cookie, now: now) }
        return contents
    }

    /// The store as a jar's text at `now`, as `curl -c FILE` writes it.
    ///
    /// ```swift
    /// let text = store.jar(now: now)
    /// ```
    public func jar(now: Int64) -> String {
        NetscapeCookieJar.serialize(cookies, now: now)
    }
}

extension UVHTTPCookieStorage {
    /// Adds a jar's cookies under the lock; as ``CookieStore/load(jar:now:)``.
    @discardableResult
    public func load(jar text: String, now: Int64) -> NetscapeCookieJar.Contents {
        withStore { $0.load(jar: text, now: now) }
    }

    /// The jar text of every cookie at `now`; as ``CookieStore/jar(now:)``.
    public func jar(now: Int64) -> String {
        withStore { $0.jar(now: now) }
    }
}
