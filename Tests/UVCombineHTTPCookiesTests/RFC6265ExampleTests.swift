import Testing
import UVCombineHTTPCookies

/// RFC 6265 section 3.1's examples, as a user agent sees them.
@Suite("RFC 6265 section 3.1 examples")
struct RFC6265ExampleTests {
    let now: Int64 = 1_600_000_000 // 2020-09-13, before the examples' 2021 expiry
    let url = CookieRequestURL(scheme: "https", host: "www.example.com", path: "/")

    @Test("two cookies, then both sent")
    func twoCookies() {
        var store = CookieStore()
        store.receive(setCookie: "SID=31d4d96e407aad42", from: url, now: now)
        store.receive(setCookie: "lang=en-US", from: url, now: now)
        #expect(store.cookieHeader(for: url, now: now) == "SID=31d4d96e407aad42; lang=en-US")
    }

    @Test("Path and Domain, Secure and HttpOnly: sent to subdomains over https")
    func attributes() {
        var store = CookieStore()
        store.receive(setCookie: "SID=31d4d96e407aad42; Path=/; Secure; HttpOnly", from: url, now: now)
        store.receive(setCookie: "lang=en-US; Path=/; Domain=example.com", from: url, now: now)
        #expect(store.cookieHeader(for: url, now: now) == "SID=31d4d96e407aad42; lang=en-US")
        #expect(store.cookieHeader(for: CookieRequestURL(scheme: "http", host: "docs.example.com", path: "/"), now: now) == "lang=en-US")
    }

    @Test("a persistent cookie, then deleted by an Expires in the past")
    func expiresAndDelete() {
        var store = CookieStore()
        store.receive(setCookie: "SID=31d4d96e407aad42; Path=/; Secure; HttpOnly", from: url, now: now)
        store.receive(setCookie: "lang=en-US; Expires=Wed, 09 Jun 2021 10:18:14 GMT", from: url, now: now)
        #expect(store.cookies.last?.expires == 1_623_233_894)
        #expect(store.cookieHeader(for: url, now: now) == "SID=31d4d96e407aad42; lang=en-US")
        #expect(store.receive(setCookie: "lang=; Expires=Sun, 06 Nov 1994 08:49:37 GMT", from: url, now: now) == .deleted)
        #expect(store.cookieHeader(for: url, now: now) == "SID=31d4d96e407aad42")
        // And without the deletion, the cookie expires by itself.
        #expect(store.cookieHeader(for: url, now: 1_700_000_000) == "SID=31d4d96e407aad42")
    }
}
