import Testing
import UVCombineHTTPCookies

@Suite("Set-Cookie parsing (RFC 6265 5.2)")
struct SetCookieTests {
    @Test("name and value are trimmed; the value keeps quotes and inner spaces")
    func nameValue() throws {
        let cookie = try #require(SetCookie(parsing: "  SID = \"a b\" ; Path=/"))
        #expect(cookie.name == "SID")
        #expect(cookie.value == "\"a b\"")
        #expect(cookie.path == "/")
    }

    @Test("non-ASCII is kept whole; a combining mark after a delimiter does not hide it")
    func nonASCII() throws {
        let cookie = try #require(SetCookie(parsing: " n\u{E9} = caf\u{E9} ;Path=/\u{E9}"))
        #expect(cookie.name == "n\u{E9}")
        #expect(cookie.value == "caf\u{E9}")
        #expect(cookie.path == "/\u{E9}")
        let combining = try #require(SetCookie(parsing: "a=\u{301}x;\u{301}Secure; Path=/p"))
        #expect(combining.value == "\u{301}x")
        #expect(!combining.isSecure) // the attribute is named "\u{301}Secure"
        #expect(combining.path == "/p")
    }

    @Test("an empty value and a value with '=' are kept")
    func values() throws {
        #expect(try #require(SetCookie(parsing: "a=")).value == "")
        #expect(try #require(SetCookie(parsing: "a=b=c; x")).value == "b=c")
    }

    @Test("lines RFC 6265 ignores: no '=' in the pair, empty name", arguments: ["", "abc", "abc; a=b", "=value", "  =v", ";a=b"])
    func ignored(_ line: String) {
        #expect(SetCookie(parsing: line) == nil)
    }

    @Test("attribute names are case-insensitive and trimmed; unknown ones are ignored")
    func attributes() throws {
        let cookie = try #require(SetCookie(parsing: "a=1; SECURE ;httponly; DoMaIn = Example.COM ; sameSITE=lax; Priority=High"))
        #expect(cookie.isSecure)
        #expect(cookie.isHTTPOnly)
        #expect(cookie.domain == "example.com")
        #expect(cookie.sameSite == .lax)
    }

    @Test("Domain: one leading dot dropped, empty ignored, the last one counts")
    func domain() throws {
        #expect(try #require(SetCookie(parsing: "a=1; Domain=.example.com")).domain == "example.com")
        #expect(try #require(SetCookie(parsing: "a=1; Domain=..example.com")).domain == ".example.com")
        #expect(try #require(SetCookie(parsing: "a=1; Domain=x.com; Domain=")).domain == "x.com")
        #expect(try #require(SetCookie(parsing: "a=1; Domain=x.com; Domain=y.com")).domain == "y.com")
        #expect(try #require(SetCookie(parsing: "a=1; Domain")).domain == nil)
    }

    @Test("Path: kept when it starts with '/', otherwise the default path (nil), last one counts")
    func path() throws {
        #expect(try #require(SetCookie(parsing: "a=1; Path=/docs/")).path == "/docs/")
        #expect(try #require(SetCookie(parsing: "a=1; Path=docs")).path == nil)
        #expect(try #require(SetCookie(parsing: "a=1; Path=")).path == nil)
        #expect(try #require(SetCookie(parsing: "a=1; Path=/x; Path=y")).path == nil)
        #expect(try #require(SetCookie(parsing: "a=1; Path=y; Path=/x")).path == "/x")
    }

    @Test("Max-Age: digits with an optional '-', anything else ignored, saturated")
    func maxAge() throws {
        #expect(try #require(SetCookie(parsing: "a=1; Max-Age=60")).maxAge == 60)
        #expect(try #require(SetCookie(parsing: "a=1; Max-Age=-5")).maxAge == -5)
        #expect(try #require(SetCookie(parsing: "a=1; Max-Age=0")).maxAge == 0)
        #expect(try #require(SetCookie(parsing: "a=1; Max-Age=+5")).maxAge == nil)
        #expect(try #require(SetCookie(parsing: "a=1; Max-Age=5s")).maxAge == nil)
        #expect(try #require(SetCookie(parsing: "a=1; Max-Age=-")).maxAge == nil)
        #expect(try #require(SetCookie(parsing: "a=1; Max-Age=")).maxAge == nil)
        #expect(try #require(SetCookie(parsing: "a=1; Max-Age=10; Max-Age=x")).maxAge == 10)
        #expect(try #require(SetCookie(parsing: "a=1; Max-Age=99999999999999999999999")).maxAge == Int64.max)
    }

    @Test("Expires: a cookie-date, or ignored")
    func expires() throws {
        #expect(try #require(SetCookie(parsing: "a=1; Expires=Sun, 06 Nov 1994 08:49:37 GMT")).expires == 784_111_777)
        #expect(try #require(SetCookie(parsing: "a=1; Expires=tomorrow")).expires == nil)
        #expect(try #require(SetCookie(parsing: "a=1; expires=Sun, 06 Nov 1994 08:49:37 GMT; Expires=never")).expires == 784_111_777)
    }

    @Test("SameSite: Strict, Lax, None any case; other values ignored")
    func sameSite() throws {
        #expect(try #require(SetCookie(parsing: "a=1; SameSite=Strict")).sameSite == .strict)
        #expect(try #require(SetCookie(parsing: "a=1; SameSite=NONE")).sameSite == CookieSameSite.none)
        #expect(try #require(SetCookie(parsing: "a=1; SameSite=Lax; SameSite=bogus")).sameSite == .lax)
        #expect(try #require(SetCookie(parsing: "a=1; SameSite")).sameSite == nil)
    }
}
