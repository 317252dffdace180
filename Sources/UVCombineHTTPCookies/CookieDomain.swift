/// Hosts and domains for cookies: canonical form, IP-address detection,
/// domain-match (RFC 6265 section 5.1.3) and the public-suffix policy.
///
/// Threading: pure functions; any thread.
internal enum CookieDomain {
    /// The canonical host: ASCII-lowercased, IPv6 brackets removed.
    /// Internationalised names are expected as A-labels (`xn--…`), as URL
    /// hosts are; no IDNA mapping happens here.
    internal static func canonicalHost(_ host: some StringProtocol) -> String {
        var text = Substring(host)
        if text.first == "[", text.last == "]" { text = text.dropFirst().dropLast() }
        return CookieASCII.lowercased(text)
    }

    /// Whether `host` (canonical) is an IP address: IPv6 has a colon; an
    /// IPv4 address (any form a URL parser accepts) ends in a label of
    /// digits, which no registrable host name does (WHATWG URL's "ends in
    /// a number").
    internal static func isIPAddress(_ host: String) -> Bool {
        if host.utf8.contains(UInt8(ascii: ":")) { return true }
        let last = host.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).last ?? []
        return !last.isEmpty && last.allSatisfy(CookieASCII.isDigit)
    }

    /// Section 5.1.3: `host` domain-matches `domain` when they are equal,
    /// or `domain` is a suffix of `host` after a `.` and `host` is a name,
    /// not an IP address. Both canonical.
    internal static func matches(host: String, domain: String) -> Bool {
        if host == domain { return true }
        let hostBytes = host.utf8
        let domainBytes = domain.utf8
        guard hostBytes.count > domainBytes.count, !domainBytes.isEmpty else { return false }
        let dot = hostBytes.index(hostBytes.endIndex, offsetBy: -(domainBytes.count + 1))
        return hostBytes[dot] == UInt8(ascii: ".")
            && hostBytes[hostBytes.index(after: dot)...].elementsEqual(domainBytes)
            && !isIPAddress(host)
    }

    /// The public-suffix policy (docs/cookies.md): a single label (`com`,
    /// `localhost`, `test`) is a public suffix, as the Public Suffix List's
    /// implicit `*` rule says; so is any domain in `additional`. Multi-label
    /// suffixes (`co.uk`, `github.io`) are not known without a list.
    internal static func isPublicSuffix(_ domain: String, additional: Set<String>) -> Bool {
        !domain.utf8.contains(UInt8(ascii: ".")) || additional.contains(domain)
    }
}
