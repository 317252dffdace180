/// The `SameSite` attribute of a cookie (RFC 6265bis), kept as a value.
///
/// The store keeps it and a jar drops it (curl's format has no column for
/// it); nothing enforces it: a client has no "site for cookies" to compare
/// with (docs/cookies.md). A `SameSite` value other than these three is
/// ignored, as RFC 6265bis says.
///
/// Threading: a value type; `Sendable`.
///
/// ```swift
/// print(CookieSameSite(attributeValue: "lax") == .lax) // Prints: "true"
/// ```
public enum CookieSameSite: String, Sendable, Hashable {
    /// `SameSite=Strict`.
    case strict = "Strict"
    /// `SameSite=Lax`.
    case lax = "Lax"
    /// `SameSite=None`.
    case none = "None"

    /// The value named by an attribute value, compared without regard to
    /// ASCII case; `nil` for anything else.
    public init?(attributeValue: some StringProtocol) {
        switch CookieASCII.lowercased(attributeValue) {
        case "strict": self = .strict
        case "lax": self = .lax
        case "none": self = .none
        default: return nil
        }
    }
}
