/// How a session follows HTTP redirects.
///
/// The defaults follow URLSession and curl: up to 5 redirects, no
/// downgrade from `https` to `http`.
///
/// ```swift
/// var policy = RedirectPolicy()
/// policy.maximumRedirects = 10
/// let noRedirects = RedirectPolicy.none // 3xx responses are delivered as values
/// ```
///
/// Threading: a value type; `Sendable`.
public struct RedirectPolicy: Sendable, Equatable {
    /// Whether redirects are followed at all. When false, every 3xx
    /// response is delivered as it is.
    public var followsRedirects: Bool = true
    /// The most redirects one task follows; one more fails the task with
    /// `.httpTooManyRedirects`. Default 5.
    public var maximumRedirects: Int = 5
    /// Whether a redirect from `https` to `http` is followed. Default
    /// false: such a redirect fails with `.insecureRedirect`.
    public var allowsHTTPSToHTTP: Bool = false

    /// The defaults: follow up to 5 redirects, never downgrade.
    public init() {}

    /// A policy that follows no redirect.
    public static var none: RedirectPolicy {
        var policy = RedirectPolicy()
        policy.followsRedirects = false
        return policy
    }
}
