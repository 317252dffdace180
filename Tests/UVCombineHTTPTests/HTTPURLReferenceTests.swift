import Testing
import UVCombineHTTPCore

@Suite("HTTPURLReference")
struct HTTPURLReferenceTests {
    @Test func splitsTheFiveComponents() throws {
        let reference = try #require(HTTPURLReference(parsing: "http://u@[::1]:8080/a/b?q=1#frag"))
        #expect(reference.scheme == "http")
        #expect(reference.authority == "u@[::1]:8080")
        #expect(reference.path == "/a/b")
        #expect(reference.query == "q=1")
        #expect(reference.fragment == "frag")
        let parts = try #require(reference.authorityParts)
        #expect(parts.userInfo == "u")
        #expect(parts.host == "::1")
        #expect(parts.port == 8080)
        #expect(reference.description == "http://u@[::1]:8080/a/b?q=1#frag")
    }

    @Test(arguments: [
        ("/relative", nil as String?, nil as String?, "/relative"),
        ("//example.com/x", nil, "example.com", "/x"),
        ("c/d:e", nil, nil, "c/d:e"),
        ("1http://x/", nil, nil, "1http://x/"),
        ("mailto:a@example.com", "mailto", nil, "a@example.com"),
    ])
    func schemeOnlyWhenWellFormed(_ text: String, _ scheme: String?, _ authority: String?, _ path: String) throws {
        let reference = try #require(HTTPURLReference(parsing: text))
        #expect(reference.scheme == scheme)
        #expect(reference.authority == authority)
        #expect(reference.path == path)
    }

    @Test func repairsWhatAURLMayNotHoldAsFoundationDoes() throws {
        let reference = try #require(HTTPURLReference(parsing: "http://h/a b\"<é>?x=|%zz#^"))
        #expect(reference.path == "/a%20b%22%3C%C3%A9%3E")
        #expect(reference.query == "x=%7C%25zz")
        #expect(reference.fragment == "%5E")
        // Valid escapes stay as they are.
        #expect(HTTPURLReference(parsing: "http://h/a%20b")?.path == "/a%20b")
    }

    @Test(arguments: ["", "http:", "http://[::1/", "http://[::1]x/", "http://h:8o/", "http://h:-1/"])
    func refusesMalformed(_ text: String) {
        #expect(HTTPURLReference(parsing: text) == nil)
    }

    @Test(arguments: [
        // RFC 3986, section 5.4.1 (normal examples), base http://a/b/c/d;p?q
        ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"), ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"),
        ("g?y", "http://a/b/c/g?y"), ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"),
        (";x", "http://a/b/c/;x"), ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"),
        ("./", "http://a/b/c/"), ("..", "http://a/b/"), ("../", "http://a/b/"), ("../g", "http://a/b/g"),
        ("../..", "http://a/"), ("../../g", "http://a/g"),
        // Abnormal examples (5.4.2).
        ("../../../g", "http://a/g"), ("/./g", "http://a/g"), ("/../g", "http://a/g"), ("g.", "http://a/b/c/g."),
        ("..g", "http://a/b/c/..g"), ("./../g", "http://a/b/g"), ("g/./h", "http://a/b/c/g/h"),
        ("g/../h", "http://a/b/c/h"), ("g?y/./x", "http://a/b/c/g?y/./x"), ("https://o/./x/../y", "https://o/y"),
    ])
    func resolvesAsRFC3986Says(_ relative: String, _ expected: String) throws {
        let base = try #require(HTTPURLReference(parsing: "http://a/b/c/d;p?q"))
        // "" is no reference of its own here (a redirect needs a target),
        // so it is built by hand.
        let reference = relative.isEmpty
            ? HTTPURLReference(parsing: "?q").map { var r = $0; r.query = nil; return r }
            : HTTPURLReference(parsing: relative)
        let resolved = try #require(reference).resolved(against: base)
        #expect(resolved.description == expected)
    }

    @Test func percentDecoding() {
        #expect(HTTPURLReference.percentDecoded("a%2Fb%25") == "a/b%")
        #expect(HTTPURLReference.percentDecoded("%4") == nil)
        #expect(HTTPURLReference.percentDecoded("%zz") == nil)
    }

    @Test(arguments: [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("alice:secret", "YWxpY2U6c2VjcmV0")])
    func base64(_ text: String, _ expected: String) {
        #expect(Base64.encoded(Array(text.utf8)) == expected)
    }

    /// RFC 3986 section 5.2.4's examples, and the cases curl's path
    /// handling meets (the fetch tool resolves with this function).
    @Test(arguments: [
        ("/a/b/c/./../../g", "/a/g"),
        ("mid/content=5/../6", "mid/6"),
        ("/a/b/../c/./d", "/a/c/d"),
        ("/a/..", "/"),
        ("/a/.", "/a/"),
        ("/../x", "/x"),
        ("/no/dots", "/no/dots"),
        ("/a.b/c..d/.e", "/a.b/c..d/.e"),
        ("", ""),
    ])
    func removingDotSegments(_ path: String, _ expected: String) {
        #expect(HTTPURLReference.removingDotSegments(path) == expected)
    }
}
