import Testing
import UVCombineHTTPCookies

@Suite("Cookie store: limits (RFC 6265 6.1)")
struct CookieLimitsTests {
    let now: Int64 = 1_700_000_000

    @Test("the defaults: 180 per domain, 3000 in all, 4096 bytes")
    func defaults() {
        #expect(CookieStore.Limits() == CookieStore.Limits(cookiesPerDomain: 180, totalCookies: 3000, maximumNameValueBytes: 4096))
        #expect(CookieStore.Limits(cookiesPerDomain: 0, totalCookies: -1).cookiesPerDomain == 1)
    }

    @Test("per domain: expired cookies go first, then the least recently used")
    func perDomain() {
        var store = CookieStore(limits: .init(cookiesPerDomain: 3))
        let url = CookieRequestURL.http("example.com")
        store.receive(setCookie: "a=1", from: url, now: now)
        store.receive(setCookie: "b=1; Max-Age=5", from: url, now: now)
        store.receive(setCookie: "c=1", from: url, now: now)
        store.receive(setCookie: "d=1", from: .http("other.com"), now: now)
        // At now + 10, b has expired: it goes, not a.
        store.receive(setCookie: "e=1", from: url, now: now + 10)
        #expect(store.cookies.map(\.name) == ["a", "c", "d", "e"])
        // All three are sent at now + 20, then c is replaced at now + 21:
        // a and e were used last, and a is older, so a goes.
        _ = store.cookies(for: url, now: now + 20)
        store.receive(setCookie: "c=2", from: url, now: now + 21)
        store.receive(setCookie: "f=1", from: url, now: now + 22)
        #expect(store.cookies.map(\.name) == ["c", "d", "e", "f"])
        #expect(store.count == 4)
    }

    @Test("in all: the least recently used cookie of any domain goes")
    func total() {
        var store = CookieStore(limits: .init(totalCookies: 3))
        store.receive(setCookie: "a=1", from: .http("a.com"), now: now)
        store.receive(setCookie: "b=1", from: .http("b.com"), now: now + 1)
        store.receive(setCookie: "c=1", from: .http("c.com"), now: now + 2)
        _ = store.cookieHeader(for: .http("a.com"), now: now + 3)
        store.receive(setCookie: "d=1", from: .http("d.com"), now: now + 4)
        #expect(store.cookies.map(\.name) == ["a", "c", "d"])
        #expect(store.count == 3)
    }

    @Test("removal helpers: expired, session, by predicate, all")
    func removal() {
        var store = CookieStore()
        let url = CookieRequestURL.http("example.com")
        store.receive(setCookie: "a=1", from: url, now: now)
        store.receive(setCookie: "b=1; Max-Age=5", from: url, now: now)
        store.receive(setCookie: "c=1; Max-Age=100", from: url, now: now)
        store.removeExpired(now: now + 10)
        #expect(store.cookies.map(\.name) == ["a", "c"])
        store.removeSessionCookies()
        #expect(store.cookies.map(\.name) == ["c"])
        store.receive(setCookie: "d=1", from: .http("other.com"), now: now)
        store.removeAll { $0.domain == "other.com" }
        #expect(store.cookies.map(\.name) == ["c"])
        store.removeAll()
        #expect(store.isEmpty)
        #expect(store.count == 0)
    }
}
