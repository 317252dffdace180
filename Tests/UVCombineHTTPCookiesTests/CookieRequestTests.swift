import HTTPTypes
import Testing
import UVCombineHTTPCookies

@Suite("Cookie store: the Cookie field (RFC 6265 5.4) and paths (5.1.4)")
struct CookieRequestTests {
    let now: Int64 = 1_700_000_000

    @Test("default path: the request path up to its last '/'", arguments: [
        ("/", "/"), ("", "/"), ("/index.html", "/"), ("/docs/", "/docs"), ("/docs/a/b.html", "/docs/a"),
        ("/docs?x=/y/z", "/"), ("/a/b?q#f", "/a"),
    ])
    func defaultPath(_ requestPath: String, _ expected: String) throws {
        var store = CookieStore()
        store.receive(setCookie: "a=1", from: .http("example.com", requestPath), now: now)
        #expect(try #require(store.cookies.first).path == expected)
    }

    @Test("path-match: equal, or a prefix ending in '/' or followed by '/'")
    func pathMatch() {
        var store = CookieStore()
        let url = CookieRequestURL.http("example.com")
        store.receive(setCookie: "a=1; Path=/docs", from: url, now: now)
        store.receive(setCookie: "b=1; Path=/docs/", from: url, now: now)
        let sent = { (path: String) in store.cookieHeader(for: .http("example.com", path), now: now) }
        #expect(sent("/docs") == "a=1")
        #expect(sent("/docs/") == "b=1; a=1")
        #expect(sent("/docs/x") == "b=1; a=1")
        #expect(sent("/docsx") == nil)
        #expect(sent("/Docs") == nil)
        #expect(sent("/") == nil)
    }

    @Test("order: longer paths first, then older cookies")
    func order() {
        var store = CookieStore()
        let url = CookieRequestURL.http("www.example.com", "/a/b/c")
        store.receive(setCookie: "root=1; Path=/", from: url, now: now)
        store.receive(setCookie: "ab=1; Path=/a/b", from: url, now: now)
        store.receive(setCookie: "dom=1; Domain=example.com; Path=/", from: url, now: now)
        store.receive(setCookie: "a=1; Path=/a", from: url, now: now)
        store.receive(setCookie: "ab2=1; Path=/a/b", from: url, now: now + 1)
        #expect(store.cookieHeader(for: url, now: now) == "ab=1; ab2=1; a=1; root=1; dom=1")
    }

    @Test("Secure cookies: set from and sent to secure contexts only (https, wss, loopback)")
    func secure() {
        var store = CookieStore()
        #expect(store.receive(setCookie: "s=1; Secure", from: .http("example.com"), now: now) == .rejected(.secureFromInsecureContext))
        #expect(store.receive(setCookie: "s=1; Secure", from: .https("example.com"), now: now) == .stored)
        #expect(store.cookieHeader(for: .http("example.com"), now: now) == nil)
        #expect(store.cookieHeader(for: .https("example.com"), now: now) == "s=1")
        #expect(store.cookieHeader(for: CookieRequestURL(scheme: "WSS", host: "example.com", path: "/"), now: now) == "s=1")
        #expect(store.receive(setCookie: "l=1; Secure", from: .http("localhost"), now: now) == .stored)
        #expect(store.cookieHeader(for: .http("localhost"), now: now) == "l=1")
        #expect(store.receive(setCookie: "l=1; Secure", from: .http("127.0.0.1"), now: now) == .stored)
        #expect(store.receive(setCookie: "l=1; Secure", from: .http("[::1]"), now: now) == .stored)
    }

    @Test("an insecure request cannot shadow a Secure cookie of the same name (RFC 6265bis)")
    func leaveSecureCookiesAlone() {
        var store = CookieStore()
        store.receive(setCookie: "s=1; Secure; Domain=example.com; Path=/", from: .https("www.example.com"), now: now)
        #expect(store.receive(setCookie: "s=2", from: .http("www.example.com", "/x/y"), now: now) == .rejected(.wouldShadowSecureCookie))
        #expect(store.receive(setCookie: "s=2; Domain=example.com", from: .http("a.example.com"), now: now) == .rejected(.wouldShadowSecureCookie))
        #expect(store.receive(setCookie: "t=2", from: .http("www.example.com"), now: now) == .stored)
        #expect(store.receive(setCookie: "s=2", from: .http("other.com"), now: now) == .stored)
        #expect(store.receive(setCookie: "s=3", from: .https("www.example.com"), now: now) == .stored)
    }

    @Test("HttpOnly cookies go with HTTP requests; SameSite is kept, not enforced")
    func httpOnlyAndSameSite() throws {
        var store = CookieStore()
        store.receive(setCookie: "h=1; HttpOnly; SameSite=Strict", from: .https("example.com"), now: now)
        #expect(try #require(store.cookies.first).sameSite == .strict)
        #expect(store.cookieHeader(for: .https("example.com"), now: now) == "h=1")
    }

    @Test("sending updates the last-access time")
    func lastAccess() throws {
        var store = CookieStore()
        store.receive(setCookie: "a=1", from: .http("example.com"), now: now)
        _ = store.cookieHeader(for: .http("example.com"), now: now + 5)
        #expect(try #require(store.cookies.first).lastAccessTime == now + 5)
    }

    @Test("a request URL from HTTPRequest: user info and port dropped, IPv6 brackets removed, query dropped")
    func requestURL() throws {
        let request = HTTPRequest(method: .get, scheme: "HTTP", authority: "user:pw@Example.com:8080", path: "/a/b?c")
        let url = try #require(CookieRequestURL(request))
        #expect(url == CookieRequestURL(scheme: "http", host: "example.com", path: "/a/b"))
        let v6 = try #require(CookieRequestURL(HTTPRequest(method: .get, scheme: "https", authority: "[::1]:443", path: "/")))
        #expect(v6.host == "::1")
        #expect(v6.isIPAddress)
        #expect(CookieRequestURL(HTTPRequest(method: .get, scheme: nil, authority: "a", path: "/")) == nil)
        #expect(CookieRequestURL(HTTPRequest(method: .get, scheme: "http", authority: ":80", path: "/")) == nil)
        #expect(CookieRequestURL(HTTPRequest(method: .get, scheme: "http", authority: "[::1", path: "/")) == nil)
    }

    @Test("cookieField(for: HTTPRequest) gives the Cookie field")
    func cookieField() {
        var store = CookieStore()
        store.receive(setCookie: "a=1", from: .http("example.com"), now: now)
        let request = HTTPRequest(method: .get, scheme: "http", authority: "example.com", path: "/x")
        #expect(store.cookieField(for: request, now: now) == HTTPField(name: .cookie, value: "a=1"))
        let other = HTTPRequest(method: .get, scheme: "http", authority: "example.org", path: "/x")
        #expect(store.cookieField(for: other, now: now) == nil)
    }
}
