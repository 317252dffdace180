/// One `Set-Cookie` field value, parsed by RFC 6265 section 5.2: the
/// name, the value and the attributes the store acts on. What is not here
/// (the domain and path the cookie ends up with, host-only, the expiry
/// time) depends on the request and the clock: ``CookieStore`` decides it.
///
/// Parsing never fails on attributes: one that does not parse is ignored
/// (an `Expires` that is no cookie-date, a `Max-Age` with a non-digit, an
/// empty `Domain`), and of several with the same name the last counts.
/// Only the name-value pair can make the whole line ignored.
///
/// Threading: a value type; `Sendable`.
///
/// ```swift
/// let cookie = SetCookie(parsing: "SID=31d4; Path=/docs; Domain=.Example.com; Max-Age=60; HttpOnly")!
/// print(cookie.name, cookie.domain!, cookie.path!, cookie.maxAge!) // Prints: "SID example.com /docs 60"
/// print(SetCookie(parsing: "no-equals-sign") as Any) // Prints: "nil"
/// ```
public struct SetCookie: Sendable, Hashable {
    /// The cookie's name, without surrounding white space; never empty.
    public var name: String
    /// The cookie's value, without surrounding white space.
    public var value: String
    /// The last `Expires` that parsed as a cookie-date, in seconds since
    /// the epoch.
    public var expires: Int64?
    /// The last valid `Max-Age`, in seconds (saturated to `Int64`); zero
    /// or negative asks to delete the cookie. Wins over ``expires``.
    public var maxAge: Int64?
    /// The last non-empty `Domain`, lowercased, without one leading dot.
    public var domain: String?
    /// The last `Path` when it starts with `/`; `nil` when there is none
    /// or the last one does not (the request's default path then applies).
    public var path: String?
    /// The `Secure` attribute.
    public var isSecure: Bool = false
    /// The `HttpOnly` attribute.
    public var isHTTPOnly: Bool = false
    /// The last recognised `SameSite` value.
    public var sameSite: CookieSameSite?

    /// A line with just `name` and `value` and no attributes; set the other
    /// fields as needed (for callers that build cookies by hand).
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Parses a `Set-Cookie` field value; `nil` when RFC 6265 says to
    /// ignore it: the name-value pair has no `=`, or the name is empty
    /// after trimming.
    public init?(parsing line: some StringProtocol) {
        let text = Substring(line)
        let pairEnd = text.utf8.firstIndex(of: UInt8(ascii: ";")) ?? text.endIndex
        let pair = text[..<pairEnd]
        guard let equals = pair.utf8.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        let name = CookieASCII.trimmed(pair[..<equals])
        guard !name.isEmpty else { return nil }
        self.name = String(name)
        self.value = String(CookieASCII.trimmed(CookieASCII.after(equals, in: pair)))
        var rest = text[pairEnd...]
        while !rest.isEmpty {
            rest = CookieASCII.after(rest.startIndex, in: rest) // the ";"
            let end = rest.utf8.firstIndex(of: UInt8(ascii: ";")) ?? rest.endIndex
            apply(attribute: rest[..<end])
            rest = rest[end...]
        }
    }

    /// Section 5.2 steps for one `cookie-av`.
    private mutating func apply(attribute: Substring) {
        let attributeName: Substring
        let attributeValue: Substring
        if let equals = attribute.utf8.firstIndex(of: UInt8(ascii: "=")) {
            attributeName = CookieASCII.trimmed(attribute[..<equals])
            attributeValue = CookieASCII.trimmed(CookieASCII.after(equals, in: attribute))
        } else {
            attributeName = CookieASCII.trimmed(attribute)
            attributeValue = attribute[attribute.endIndex...]
        }
        switch CookieASCII.lowercased(attributeName) {
        case "expires":
            if let date = CookieDate.parse(attributeValue) { expires = date }
        case "max-age":
            if let seconds = Self.parseMaxAge(attributeValue) { maxAge = seconds }
        case "domain":
            // An empty Domain is ignored (RFC 6265 5.2.3: "SHOULD ignore").
            guard !attributeValue.isEmpty else { return }
            let stripped = attributeValue.utf8.first == UInt8(ascii: ".") ? CookieASCII.after(attributeValue.startIndex, in: attributeValue) : attributeValue
            domain = CookieASCII.lowercased(stripped)
        case "path":
            path = attributeValue.utf8.first == UInt8(ascii: "/") ? String(attributeValue) : nil
        case "secure":
            isSecure = true
        case "httponly":
            isHTTPOnly = true
        case "samesite":
            if let value = CookieSameSite(attributeValue: attributeValue) { sameSite = value }
        default:
            break
        }
    }

    /// `Max-Age` by section 5.2.2: an optional `-` then digits only;
    /// saturated at `Int64`'s bounds.
    internal static func parseMaxAge(_ text: Substring) -> Int64? {
        var digits = text.utf8[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard CookieASCII.isDigit(byte) else { return nil }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(byte - 0x30))
            value = overflow1 || overflow2 ? Int64.max : sum
        }
        return negative ? -value : value
    }
}
