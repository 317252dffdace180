import HTTPTypes
import Testing
import UVCombineHTTP
import UVCombineHTTPCore

private func target(_ string: String) -> HTTPRequestTarget {
    try! HTTPRequestTarget(string: string)
}

private func redirect(_ code: Int, to location: String?) -> HTTPResponse {
    var response = HTTPResponse(status: .init(code: code))
    if let location { response.headerFields[.location] = location }
    return response
}

/// A POST with a body's fields and credentials.
private func postRequest(to start: HTTPRequestTarget) -> HTTPRequest {
    var fields = HTTPFields()
    fields[.contentType] = "application/json"
    fields[.contentLength] = "2"
    fields[.authorization] = "Bearer secret"
    fields[.cookie] = "a=1"
    fields[.accept] = "*/*"
    return start.makeRequest(method: .post, headerFields: fields)
}

@Suite("RedirectStateMachine")
struct RedirectStateMachineTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var code: Int
        var method: HTTPRequest.Method
        var location: String?
        var start = "http://example.com/a/b?q=1"
        /// The URL, method, body kept and field names of the next request,
        /// or nil when the response is delivered.
        var next: (url: String, method: HTTPRequest.Method, keepsBody: Bool, fields: [String])?
        var testDescription: String { name }
    }

    static let allFields = ["Content-Type", "Content-Length", "Authorization", "Cookie", "Accept"]
    static let bodyless = ["Authorization", "Cookie", "Accept"]

    static let cases: [Case] = [
        Case(name: "301 GET keeps GET", code: 301, method: .get, location: "/c", next: ("http://example.com/c", .get, true, allFields)),
        Case(name: "301 POST becomes GET", code: 301, method: .post, location: "/c", next: ("http://example.com/c", .get, false, bodyless)),
        Case(name: "302 POST becomes GET", code: 302, method: .post, location: "/c", next: ("http://example.com/c", .get, false, bodyless)),
        Case(name: "302 PUT keeps PUT and body", code: 302, method: .put, location: "/c", next: ("http://example.com/c", .put, true, allFields)),
        Case(name: "303 POST becomes GET", code: 303, method: .post, location: "/c", next: ("http://example.com/c", .get, false, bodyless)),
        Case(name: "303 PUT becomes GET", code: 303, method: .put, location: "/c", next: ("http://example.com/c", .get, false, bodyless)),
        Case(name: "303 HEAD stays HEAD", code: 303, method: .head, location: "/c", next: ("http://example.com/c", .head, false, bodyless)),
        Case(name: "307 POST keeps POST and body", code: 307, method: .post, location: "/c", next: ("http://example.com/c", .post, true, allFields)),
        Case(name: "308 POST keeps POST and body", code: 308, method: .post, location: "/c", next: ("http://example.com/c", .post, true, allFields)),
        Case(name: "relative path", code: 302, method: .get, location: "c/d?x", next: ("http://example.com/a/c/d?x", .get, true, allFields)),
        Case(name: "dot segments", code: 302, method: .get, location: "../up", next: ("http://example.com/up", .get, true, allFields)),
        Case(name: "query only", code: 302, method: .get, location: "?page=2", next: ("http://example.com/a/b?page=2", .get, true, allFields)),
        Case(name: "network-path reference drops credentials", code: 302, method: .get, location: "//other.example/z", next: ("http://other.example/z", .get, true, ["Content-Type", "Content-Length", "Accept"])),
        Case(name: "another port is another origin", code: 307, method: .get, location: "http://example.com:8080/z", next: ("http://example.com:8080/z", .get, true, ["Content-Type", "Content-Length", "Accept"])),
        Case(name: "http to https upgrade", code: 301, method: .get, location: "https://example.com/a/b", next: ("https://example.com/a/b", .get, true, ["Content-Type", "Content-Length", "Accept"])),
        Case(name: "300 is delivered", code: 300, method: .get, location: "/c", next: nil),
        Case(name: "304 is delivered", code: 304, method: .get, location: "/c", next: nil),
        Case(name: "305 is delivered", code: 305, method: .get, location: "/c", next: nil),
        Case(name: "redirect without Location is delivered", code: 302, method: .get, location: nil, next: nil),
        Case(name: "200 is delivered", code: 200, method: .get, location: "/c", next: nil),
    ]

    @Test(arguments: cases)
    func decides(_ c: Case) {
        let start = target(c.start)
        var machine = RedirectStateMachine(policy: RedirectPolicy(), target: start, method: c.method)
        var request = postRequest(to: start)
        request.method = c.method
        let decision = machine.decide(response: redirect(c.code, to: c.location), request: request)
        guard let next = c.next else {
            #expect(decision == .deliver)
            #expect(machine.redirectCount == 0)
            return
        }
        guard case .follow(let step) = decision else {
            Issue.record("expected a redirect, got \(decision)")
            return
        }
        #expect(step.target.description == next.url)
        #expect(step.request.method == next.method)
        #expect(step.keepsBody == next.keepsBody)
        #expect(step.request.headerFields.map(\.name.rawName) == next.fields)
        #expect(step.request.authority == step.target.authority)
        #expect(step.request.path == step.target.target)
        #expect(machine.redirectCount == 1)
        #expect(machine.current == step.target)
    }

    struct Failure: CustomTestStringConvertible, Sendable {
        var name: String
        var start = "http://example.com/a"
        var location: String
        var policy = RedirectPolicy()
        var code: UVURLError.Code
        var detail: String
        var testDescription: String { name }
    }

    static let failures: [Failure] = [
        Failure(name: "ftp", location: "ftp://example.com/f", code: .unsupportedURL, detail: "scheme \"ftp\" is not http or https"),
        Failure(name: "javascript", location: "javascript:alert(1)", code: .unsupportedURL, detail: "scheme \"javascript\" is not http or https"),
        Failure(name: "https to http", start: "https://example.com/a", location: "http://example.com/a", code: .insecureRedirect, detail: "redirect from https to http"),
        Failure(name: "user info", location: "http://u:p@example.com/", code: .badURL, detail: "user info in URL is not supported"),
        Failure(name: "unparsable Location", location: "", code: .badServerResponse, detail: "redirect Location is not a valid URL"),
        Failure(name: "redirect to itself", location: "/a", code: .httpTooManyRedirects, detail: "redirect cycle"),
        Failure(name: "zero redirects allowed", location: "/b", policy: { var p = RedirectPolicy(); p.maximumRedirects = 0; return p }(), code: .httpTooManyRedirects, detail: "more than 0 redirects"),
    ]

    @Test(arguments: failures)
    func fails(_ f: Failure) {
        let start = target(f.start)
        var machine = RedirectStateMachine(policy: f.policy, target: start, method: .get)
        let decision = machine.decide(response: redirect(302, to: f.location), request: start.makeRequest())
        #expect(decision == .fail(UVURLError(f.code, detail: f.detail)))
        #expect(machine.current == start, "a failed redirect does not move")
    }

    @Test func httpsToHTTPWhenAllowed() {
        var policy = RedirectPolicy()
        policy.allowsHTTPSToHTTP = true
        let start = target("https://example.com/a")
        var machine = RedirectStateMachine(policy: policy, target: start, method: .get)
        guard case .follow(let step) = machine.decide(response: redirect(302, to: "http://example.com/a"), request: start.makeRequest()) else {
            Issue.record("expected a redirect")
            return
        }
        #expect(step.target.scheme == .http)
    }

    @Test func policyNoneDeliversRedirects() {
        let start = target("http://example.com/a")
        var machine = RedirectStateMachine(policy: .none, target: start, method: .get)
        #expect(machine.decide(response: redirect(301, to: "/b"), request: start.makeRequest()) == .deliver)
    }

    @Test func limitCountsFollowedRedirects() {
        let start = target("http://example.com/0")
        var machine = RedirectStateMachine(policy: RedirectPolicy(), target: start, method: .get)
        var request = start.makeRequest()
        for hop in 1...5 {
            guard case .follow(let step) = machine.decide(response: redirect(302, to: "/\(hop)"), request: request) else {
                Issue.record("hop \(hop) should be followed")
                return
            }
            request = step.request
        }
        #expect(machine.redirectCount == 5)
        #expect(machine.decide(response: redirect(302, to: "/6"), request: request)
            == .fail(UVURLError(.httpTooManyRedirects, detail: "more than 5 redirects")))
    }

    @Test func cycleThroughSeveralURLsIsDetected() {
        let start = target("http://example.com/a")
        var machine = RedirectStateMachine(policy: RedirectPolicy(), target: start, method: .get)
        guard case .follow(let step) = machine.decide(response: redirect(302, to: "/b"), request: start.makeRequest()) else {
            Issue.record("expected a redirect")
            return
        }
        #expect(machine.decide(response: redirect(302, to: "/a"), request: step.request)
            == .fail(UVURLError(.httpTooManyRedirects, detail: "redirect cycle")))
    }

    @Test func sameURLWithAnotherMethodIsNotACycle() {
        // POST /a → 303 → GET /a is the post/redirect/get pattern.
        let start = target("http://example.com/a")
        var machine = RedirectStateMachine(policy: RedirectPolicy(), target: start, method: .post)
        let decision = machine.decide(response: redirect(303, to: "/a"), request: start.makeRequest(method: .post))
        guard case .follow(let step) = decision else {
            Issue.record("expected a redirect, got \(decision)")
            return
        }
        #expect(step.request.method == .get)
    }
}
