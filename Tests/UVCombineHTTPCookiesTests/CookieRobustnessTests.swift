import Testing
import UVCombineHTTPCookies

/// SplitMix64: a fixed sequence, so every run feeds the same inputs.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Cookie parsers on arbitrary input")
struct CookieRobustnessTests {
    /// Bytes biased towards the delimiters the parsers look for.
    static func randomText(_ generator: inout SeededGenerator) -> String {
        let alphabet = Array("a=;, \t./:-0123456789JanFebDec\r\n#_TRUEFALSE\u{0}\u{7F}é\u{301}".utf8)
        let count = Int.random(in: 0...60, using: &generator)
        let bytes = (0..<count).map { _ in
            Bool.random(using: &generator) ? alphabet.randomElement(using: &generator)! : UInt8.random(in: 0...255, using: &generator)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("3000 random lines: no parser traps, and the store keeps its invariants")
    func randomInput() {
        var generator = SeededGenerator(state: 35)
        var store = CookieStore(limits: .init(cookiesPerDomain: 5, totalCookies: 20))
        let url = CookieRequestURL(scheme: "https", host: "a.example.com", path: "/x/y")
        for _ in 0..<3000 {
            let text = Self.randomText(&generator)
            _ = CookieDate.parse(text)
            _ = SetCookie(parsing: text)
            store.receive(setCookie: text, from: url, now: 1000)
            _ = NetscapeCookieJar.parse(text, now: 1000)
        }
        _ = store.cookieHeader(for: url, now: 1000)
        #expect(store.count == store.cookies.count)
        #expect(store.count <= 20)
        for cookie in store.cookies {
            #expect(!cookie.name.isEmpty && cookie.path.hasPrefix("/"))
        }
        let reread = NetscapeCookieJar.parse(store.jar(now: 1000), now: 1000)
        #expect(reread.rejectedLines == [])
        #expect(reread.cookies.count == store.count)
    }
}
