import HTTPTypes
import Testing
import UVCombineHTTPCookies

/// Shorthands for the store tests.
extension CookieRequestURL {
    static func http(_ host: String, _ path: String = "/") -> CookieRequestURL {
        CookieRequestURL(scheme: "http", host: host, path: path)
    }

    static func https(_ host: String, _ path: String = "/") -> CookieRequestURL {
        CookieRequestURL(scheme: "https", host: host, path: path)
    }
}

@Suite("Cookie store: storage model (RFC 6265 5.3)")
struct CookieStoreTests {
    let now: Int64 = 1_700_000_000

    @Test("no Domain attribute: a host-only cookie for the request host")
    func hostOnly() throws {
        var store = CookieStore()
        #expect(store.receive(setCookie: "a=1", from: .http("WWW.Example.com", "/docs/page"), now: now) == .stored)
        let cookie = try #require(store.cookies.first)
        #expect(cookie.domain == "www.example.com")
        #expect(cookie.isHostOnly)
        #expect(cookie.path == "/docs")
        #expect(cookie.isSession)
        #expect(cookie.creationTime == now)
        #expect(store.cookieHeader(for: .http("www.example.com"), now: now) == nil) // path /docs
        #expect(store.cookieHeader(for: .http("www.example.com", "/docs"), now: now) == "a=1")
        #expect(store.cookieHeader(for: .http("sub.www.example.com", "/docs"), now: now) == nil)
    }

    @Test("a Domain attribute: a domain cookie for it and its subdomains, not its parent")
    func domainCookie() throws {
        var store = CookieStore()
        #expect(store.receive(setCookie: "a=1; Domain=.Example.COM; Path=/", from: .http("www.example.com"), now: now) == .stored)
        let cookie = try #require(store.cookies.first)
        #expect(cookie.domain == "example.com")
        #expect(!cookie.isHostOnly)
        #expect(store.cookieHeader(for: .http("example.com"), now: now) == "a=1")
        #expect(store.cookieHeader(for: .http("a.b.example.com"), now: now) == "a=1")
        #expect(store.cookieHeader(for: .http("notexample.com"), now: now) == nil)
        #expect(store.cookieHeader(for: .http("com"), now: now) == nil)
    }

    @Test("a Domain that the host does not domain-match is rejected")
    func domainMismatch() {
        var store = CookieStore()
        #expect(store.receive(setCookie: "a=1; Domain=other.com", from: .http("www.example.com"), now: now) == .rejected(.domainMismatch))
        #expect(store.receive(setCookie: "a=1; Domain=www.example.com", from: .http("example.com"), now: now) == .rejected(.domainMismatch))
        #expect(store.receive(setCookie: "a=1; Domain=ample.com", from: .http("example.com"), now: now) == .rejected(.domainMismatch))
        #expect(store.isEmpty)
    }

    @Test("public-suffix policy: a single-label Domain is refused unless it is the host (then host-only)")
    func publicSuffix() throws {
        var store = CookieStore()
        #expect(store.receive(setCookie: "a=1; Domain=com", from: .http("example.com"), now: now) == .rejected(.publicSuffix))
        #expect(store.receive(setCookie: "a=1; Domain=.com", from: .http("example.com"), now: now) == .rejected(.publicSuffix))
        #expect(store.receive(setCookie: "b=1; Domain=localhost", from: .http("localhost"), now: now) == .stored)
        let cookie = try #require(store.cookies.first)
        #expect(cookie.domain == "localhost")
        #expect(cookie.isHostOnly)
    }

    @Test("public-suffix policy: additional suffixes are refused too; multi-label suffixes are not known by default")
    func additionalSuffixes() {
        var plain = CookieStore()
        #expect(plain.receive(setCookie: "a=1; Domain=co.uk", from: .http("shop.co.uk"), now: now) == .stored)
        var store = CookieStore(additionalPublicSuffixes: ["co.uk"])
        #expect(store.receive(setCookie: "a=1; Domain=co.uk", from: .http("shop.co.uk"), now: now) == .rejected(.publicSuffix))
        #expect(store.receive(setCookie: "a=1; Domain=co.uk", from: .http("co.uk"), now: now) == .stored)
        #expect(store.receive(setCookie: "a=1; Domain=shop.co.uk", from: .http("shop.co.uk"), now: now) == .stored)
    }

    @Test("IP-address hosts: cookies are host-only; a Domain naming another address or a name is refused")
    func ipHosts() throws {
        var store = CookieStore()
        #expect(store.receive(setCookie: "a=1; Domain=127.0.0.1", from: .http("127.0.0.1"), now: now) == .stored)
        #expect(try #require(store.cookies.first).isHostOnly)
        #expect(store.receive(setCookie: "b=1; Domain=0.0.1", from: .http("127.0.0.1"), now: now) == .rejected(.domainMismatch))
        #expect(store.receive(setCookie: "b=1; Domain=127.0.0.2", from: .http("127.0.0.1"), now: now) == .rejected(.domainMismatch))
        #expect(store.receive(setCookie: "c=1", from: .http("[::1]"), now: now) == .stored)
        #expect(store.cookies.map(\.domain) == ["127.0.0.1", "::1"])
        #expect(store.cookieHeader(for: .http("::1"), now: now) == "c=1")
        #expect(store.cookieHeader(for: .http("1.127.0.0.1"), now: now) == nil)
    }

    @Test("the same name, domain and path replaces, keeping the creation time and order")
    func replacement() throws {
        var store = CookieStore()
        let url = CookieRequestURL.http("example.com")
        store.receive(setCookie: "a=1", from: url, now: now)
        store.receive(setCookie: "b=1", from: url, now: now)
        #expect(store.receive(setCookie: "a=2; HttpOnly", from: url, now: now + 10) == .replaced)
        #expect(store.count == 2)
        let cookie = try #require(store.cookies.first)
        #expect(cookie.value == "2")
        #expect(cookie.isHTTPOnly)
        #expect(cookie.creationTime == now)
        #expect(cookie.lastAccessTime == now + 10)
        #expect(store.cookieHeader(for: url, now: now + 10) == "a=2; b=1")
        // A different path is another cookie.
        #expect(store.receive(setCookie: "a=3; Path=/x", from: url, now: now) == .stored)
        #expect(store.count == 3)
    }

    @Test("a host-only and a domain cookie with the same domain field replace each other (name, domain, path)")
    func hostOnlyAndDomainShareDomain() throws {
        var store = CookieStore()
        store.receive(setCookie: "a=1", from: .http("example.com"), now: now)
        #expect(store.receive(setCookie: "a=2; Domain=example.com", from: .http("example.com"), now: now) == .replaced)
        #expect(try #require(store.cookies.first).isHostOnly == false)
    }

    @Test("an expired cookie deletes its match; with no match nothing is stored")
    func deletion() {
        var store = CookieStore()
        let url = CookieRequestURL.http("example.com")
        store.receive(setCookie: "a=1; Max-Age=100", from: url, now: now)
        #expect(store.receive(setCookie: "a=; Max-Age=0", from: url, now: now) == .deleted)
        #expect(store.isEmpty)
        #expect(store.receive(setCookie: "b=1; Max-Age=-1", from: url, now: now) == .discardedExpired)
        store.receive(setCookie: "c=1", from: url, now: now)
        #expect(store.receive(setCookie: "c=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT", from: url, now: now) == .deleted)
        #expect(store.isEmpty)
    }

    @Test("Max-Age wins over Expires whatever their order; expiry is now plus Max-Age")
    func maxAgeOverExpires() throws {
        var store = CookieStore()
        let url = CookieRequestURL.http("example.com")
        store.receive(setCookie: "a=1; Max-Age=60; Expires=Thu, 01 Jan 2099 00:00:00 GMT", from: url, now: now)
        store.receive(setCookie: "b=1; Expires=Thu, 01 Jan 2099 00:00:00 GMT", from: url, now: now)
        store.receive(setCookie: "c=1; Max-Age=9223372036854775807", from: url, now: now)
        #expect(store.cookies.map(\.expires) == [now + 60, 4_070_908_800, Int64.max])
    }

    @Test("expiry: a cookie is sent until its expiry second and dropped after it")
    func expiry() {
        var store = CookieStore()
        let url = CookieRequestURL.http("example.com")
        store.receive(setCookie: "a=1; Max-Age=10", from: url, now: now)
        #expect(store.cookieHeader(for: url, now: now + 10) == "a=1")
        #expect(store.cookieHeader(for: url, now: now + 11) == nil)
        #expect(store.isEmpty)
    }

    @Test("bad input is refused with its reason")
    func refusals() {
        var store = CookieStore(limits: .init(maximumNameValueBytes: 8))
        let url = CookieRequestURL.https("example.com")
        #expect(store.receive(setCookie: "novalue", from: url, now: now) == .rejected(.malformed))
        #expect(store.receive(setCookie: "=x", from: url, now: now) == .rejected(.malformed))
        #expect(store.receive(setCookie: "name=value", from: url, now: now) == .rejected(.tooLarge))
        #expect(store.receive(setCookie: "abcd=efgh", from: url, now: now) == .stored)
        #expect(store.receive(setCookie: "a=b\u{1}c", from: url, now: now) == .rejected(.controlCharacter))
        #expect(store.receive(setCookie: "a=b\tc", from: url, now: now) == .rejected(.controlCharacter))
        #expect(store.receive(setCookie: "a\u{7F}=b", from: url, now: now) == .rejected(.controlCharacter))
        #expect(store.receive(SetCookie(name: "", value: "x"), from: url, now: now) == .rejected(.malformed))
        #expect(store.receive(setCookie: "a=1", from: CookieRequestURL(scheme: "http", host: "", path: "/"), now: now) == .rejected(.noHost))
        #expect(store.count == 1)
    }

    @Test("receive(_ fields:) stores every Set-Cookie field in order")
    func fields() {
        var store = CookieStore()
        var fields = HTTPFields()
        fields.append(HTTPField(name: .setCookie, value: "a=1"))
        fields.append(HTTPField(name: .contentType, value: "text/plain"))
        fields.append(HTTPField(name: .setCookie, value: "broken"))
        fields.append(HTTPField(name: .setCookie, value: "a=2"))
        #expect(store.receive(fields, from: .http("example.com"), now: now) == [.stored, .rejected(.malformed), .replaced])
        #expect(store.cookieHeader(for: .http("example.com"), now: now) == "a=2")
    }
}
