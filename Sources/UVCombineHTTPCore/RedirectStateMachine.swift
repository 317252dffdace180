import HTTPTypes

/// One task's redirect bookkeeping: a pure state machine that reads each
/// response and decides whether to deliver it, follow it, or fail.
///
/// Rules:
/// - Only 301, 302, 303, 307 and 308 with a `Location` field redirect;
///   any other response, and a 3xx without `Location`, is delivered.
/// - `Location` is resolved against the current URL (relative references
///   allowed). It must be an `http` or `https` URL that passes
///   ``HTTPRequestTarget``'s checks: otherwise the task fails with that
///   error (`.unsupportedURL` for another scheme). An unparsable
///   `Location` fails with `.badServerResponse`.
/// - `https` → `http` fails with `.insecureRedirect` unless
///   ``RedirectPolicy/allowsHTTPSToHTTP``.
/// - Following more than ``RedirectPolicy/maximumRedirects`` redirects, or
///   revisiting a (method, URL) pair already requested in this task, fails
///   with `.httpTooManyRedirects` (`"more than 5 redirects"` or
///   `"redirect cycle"`).
/// - 303 drops the body and turns any method but HEAD into GET; 301 and
///   302 turn POST into GET and drop its body (what browsers, curl and
///   URLSession do). A dropped body takes its content fields with it (`Content-Length`, `Content-Type`,
///   `Content-Encoding`, `Content-Language`, `Content-Location`,
///   `Transfer-Encoding`). 307 and 308 keep method and body.
/// - On a redirect to another origin (scheme, host or port), credentials
///   are not forwarded: `Authorization`, `Proxy-Authorization` and
///   `Cookie` are removed.
///
/// ```swift
/// let start = try HTTPRequestTarget(string: "http://example.com/old")
/// var redirects = RedirectStateMachine(policy: RedirectPolicy(), target: start, method: .get)
/// var response = HTTPResponse(status: .movedPermanently)
/// response.headerFields[.location] = "/new"
/// if case .follow(let step) = redirects.decide(response: response, request: start.makeRequest()) {
///     print(step.target) // Prints: "http://example.com/new"
/// }
/// ```
///
/// Threading: a value type; the owner uses it from the loop thread.
public struct RedirectStateMachine: Sendable {
    /// What to do with a response.
    ///
    /// ```swift
    /// switch redirects.decide(response: response, request: request) {
    /// case .deliver: deliver(response)
    /// case .follow(let step): send(step.request, to: step.target, withBody: step.keepsBody)
    /// case .fail(let error): fail(error)
    /// }
    /// ```
    public enum Decision: Sendable, Equatable {
        /// Hand the response to the subscriber (not a redirect, or not
        /// followed).
        case deliver
        /// Send `step.request` to `step.target` instead, and drop this
        /// response's body.
        case follow(Step)
        /// Fail the task.
        case fail(UVURLError)

        /// Equal cases with equal values; errors must agree on code and
        /// detail.
        public static func == (lhs: Decision, rhs: Decision) -> Bool {
            switch (lhs, rhs) {
            case (.deliver, .deliver): true
            case (.follow(let a), .follow(let b)): a == b
            case (.fail(let a), .fail(let b)): a == b && a.detail == b.detail
            default: false
            }
        }
    }

    /// The next request of a followed redirect.
    ///
    /// ```swift
    /// if case .follow(let step) = redirects.decide(response: response, request: request) {
    ///     print(step.target, step.request.method, step.keepsBody)
    /// }
    /// ```
    public struct Step: Sendable, Equatable {
        /// Where to send it.
        public var target: HTTPRequestTarget
        /// The request, method and fields already rewritten.
        public var request: HTTPRequest
        /// Whether the original body is sent again (307, 308, and 301/302
        /// for methods other than POST).
        public var keepsBody: Bool
    }

    /// The policy in force.
    public let policy: RedirectPolicy
    /// Redirects followed so far.
    public private(set) var redirectCount = 0
    /// The current URL (the last one requested).
    public private(set) var current: HTTPRequestTarget
    /// Every (method, URL) requested in this task; filled at the first
    /// redirect, so a task without redirects allocates nothing for it.
    private var visited: Set<String> = []
    /// The first request's method, for `visited`.
    private let initialMethod: HTTPRequest.Method

    /// Starts the bookkeeping for a task's first request.
    public init(policy: RedirectPolicy, target: HTTPRequestTarget, method: HTTPRequest.Method) {
        self.policy = policy
        self.current = target
        self.initialMethod = method
    }

    /// Decides what to do with `response` to `request` (the request sent
    /// to ``current``). On `.follow`, ``current`` becomes the new target.
    public mutating func decide(response: HTTPResponse, request: HTTPRequest) -> Decision {
        guard policy.followsRedirects else { return .deliver }
        let code = response.status.code
        switch code {
        case 301, 302, 303, 307, 308: break
        default: return .deliver
        }
        guard let location = response.headerFields[.location] else { return .deliver }
        guard let reference = HTTPURLReference(parsing: location) else {
            return .fail(UVURLError(.badServerResponse, detail: "redirect Location is not a valid URL"))
        }
        let next: HTTPRequestTarget
        do throws(UVURLError) {
            next = try HTTPRequestTarget(reference: reference.resolved(against: current.reference))
        } catch {
            return .fail(error)
        }
        if current.scheme == .https && next.scheme == .http && !policy.allowsHTTPSToHTTP {
            return .fail(UVURLError(.insecureRedirect, detail: "redirect from https to http"))
        }
        if redirectCount >= policy.maximumRedirects {
            return .fail(UVURLError(.httpTooManyRedirects, detail: "more than \(policy.maximumRedirects) redirects"))
        }

        var method = request.method
        var keepsBody = true
        if code == 303 {
            // "See Other": fetch the other resource; HEAD stays HEAD.
            if method != .head { method = .get }
            keepsBody = false
        } else if (code == 301 || code == 302) && method == .post {
            method = .get
            keepsBody = false
        }
        if visited.isEmpty { visited.insert(Self.visitKey(initialMethod, current)) }
        let key = Self.visitKey(method, next)
        if visited.contains(key) {
            return .fail(UVURLError(.httpTooManyRedirects, detail: "redirect cycle"))
        }

        var fields = request.headerFields
        if !keepsBody {
            for name in Self.contentFields { fields[name] = nil }
        }
        if next.key != current.key {
            for name in Self.credentialFields { fields[name] = nil }
        }
        visited.insert(key)
        redirectCount += 1
        current = next
        return .follow(Step(target: next, request: next.makeRequest(method: method, headerFields: fields), keepsBody: keepsBody))
    }

    private static func visitKey(_ method: HTTPRequest.Method, _ target: HTTPRequestTarget) -> String {
        "\(method.rawValue) \(target)"
    }

    /// Fields that describe a body and go when it does.
    private static let contentFields: [HTTPField.Name] = [
        .contentLength, .contentType, .contentEncoding, .contentLanguage, .contentLocation, .transferEncoding,
    ]

    /// Fields not forwarded to another origin.
    private static let credentialFields: [HTTPField.Name] = [.authorization, .proxyAuthorization, .cookie]
}
