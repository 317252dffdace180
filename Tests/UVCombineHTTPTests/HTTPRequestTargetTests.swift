import Foundation
import Testing
import UVCombineHTTP
import UVCombineHTTPCore

@Suite("HTTPRequestTarget")
struct HTTPRequestTargetTests {
    struct Valid: CustomTestStringConvertible, Sendable {
        var url: String
        var scheme: HTTPScheme
        var host: String
        var port: Int
        var authority: String
        var target: String
        var testDescription: String { url }
    }

    @Test(arguments: [
        Valid(url: "http://example.com", scheme: .http, host: "example.com", port: 80, authority: "example.com", target: "/"),
        Valid(url: "https://example.com/", scheme: .https, host: "example.com", port: 443, authority: "example.com", target: "/"),
        Valid(url: "HTTP://Example.COM/Path", scheme: .http, host: "example.com", port: 80, authority: "example.com", target: "/Path"),
        Valid(url: "http://example.com:80/a", scheme: .http, host: "example.com", port: 80, authority: "example.com", target: "/a"),
        Valid(url: "https://example.com:443/a", scheme: .https, host: "example.com", port: 443, authority: "example.com", target: "/a"),
        Valid(url: "http://example.com:443/a", scheme: .http, host: "example.com", port: 443, authority: "example.com:443", target: "/a"),
        Valid(url: "http://127.0.0.1:8080/x?y=1&z", scheme: .http, host: "127.0.0.1", port: 8080, authority: "127.0.0.1:8080", target: "/x?y=1&z"),
        Valid(url: "http://[::1]/", scheme: .http, host: "::1", port: 80, authority: "[::1]", target: "/"),
        Valid(url: "http://[::1]:8080/p", scheme: .http, host: "::1", port: 8080, authority: "[::1]:8080", target: "/p"),
        // The address is lowercased (one pool key per server; found by the
        // RequestValidationFuzzer), the zone keeps its case.
        Valid(url: "http://[FE80::1%25Eth0]:81/", scheme: .http, host: "fe80::1%Eth0", port: 81, authority: "[fe80::1]:81", target: "/"),
        Valid(url: "http://[Fe80::1025]/", scheme: .http, host: "fe80::1025", port: 80, authority: "[fe80::1025]", target: "/"),
        Valid(url: "http://example.com?q", scheme: .http, host: "example.com", port: 80, authority: "example.com", target: "/?q"),
        Valid(url: "http://example.com/a%20b?c=%0D%0A", scheme: .http, host: "example.com", port: 80, authority: "example.com", target: "/a%20b?c=%0D%0A"),
        Valid(url: "http://example.com/page#section", scheme: .http, host: "example.com", port: 80, authority: "example.com", target: "/page"),
        Valid(url: "http://example.com:/x", scheme: .http, host: "example.com", port: 80, authority: "example.com", target: "/x"),
        Valid(url: "http://my_host.local/", scheme: .http, host: "my_host.local", port: 80, authority: "my_host.local", target: "/"),
    ])
    func accepts(_ v: Valid) throws {
        let target = try HTTPRequestTarget(string: v.url)
        #expect(target.scheme == v.scheme)
        #expect(target.host == v.host)
        #expect(target.port == v.port)
        #expect(target.authority == v.authority)
        #expect(target.target == v.target)
        #expect(target.key == ConnectionKey(scheme: v.scheme, host: v.host, port: v.port))
        let request = target.makeRequest()
        #expect(request.authority == v.authority)
        #expect(request.path == v.target)
        #expect(request.scheme == v.scheme.rawValue)
    }

    struct Invalid: CustomTestStringConvertible, Sendable {
        var url: String
        var code: UVURLError.Code
        var detail: String
        var testDescription: String { url.debugDescription }
    }

    @Test(arguments: [
        Invalid(url: "ftp://example.com/", code: .unsupportedURL, detail: "scheme \"ftp\" is not http or https"),
        Invalid(url: "file:///etc/passwd", code: .unsupportedURL, detail: "scheme \"file\" is not http or https"),
        Invalid(url: "mailto:a@example.com", code: .unsupportedURL, detail: "scheme \"mailto\" is not http or https"),
        Invalid(url: "//example.com/x", code: .unsupportedURL, detail: "URL has no scheme"),
        Invalid(url: "/relative", code: .unsupportedURL, detail: "URL has no scheme"),
        Invalid(url: "http:///path", code: .badURL, detail: "URL has no host"),
        Invalid(url: "http://user:pw@example.com/", code: .badURL, detail: "user info in URL is not supported"),
        Invalid(url: "http://user@example.com/", code: .badURL, detail: "user info in URL is not supported"),
        Invalid(url: "http://example.com:0/", code: .badURL, detail: "port 0 is out of range"),
        Invalid(url: "http://example.com:65536/", code: .badURL, detail: "port 65536 is out of range"),
        Invalid(url: "http://example.com/a\r\nX-Injected: 1", code: .badURL, detail: "CR in URL"),
        Invalid(url: "http://example.com/a\nb", code: .badURL, detail: "LF in URL"),
        Invalid(url: "http://example.com/a\0b", code: .badURL, detail: "NUL in URL"),
        Invalid(url: "http://exa%0Dmple.com/", code: .badURL, detail: "CR in host"),
        Invalid(url: "http://exa%0Ample.com/", code: .badURL, detail: "LF in host"),
        Invalid(url: "http://exa%00mple.com/", code: .badURL, detail: "NUL in host"),
        Invalid(url: "http://exa%20mple.com/", code: .badURL, detail: "invalid character \" \" in host"),
        Invalid(url: "http://ex%2Fample.com/", code: .badURL, detail: "invalid character \"/\" in host"),
        Invalid(url: "http://caf%C3%A9.example/", code: .badURL, detail: "non-ASCII host (give an internationalised name in punycode)"),
        Invalid(url: "http://[::1::zz]/", code: .badURL, detail: "invalid IPv6 address literal"),
        Invalid(url: "http://[1:2:3:4:5:6:7:8:9]/", code: .badURL, detail: "invalid IPv6 address literal"),
        Invalid(url: "http://[fe80::1%25eth%200]/", code: .badURL, detail: "invalid IPv6 zone"),
    ])
    func refuses(_ i: Invalid) {
        do throws(UVURLError) {
            let target = try HTTPRequestTarget(string: i.url)
            Issue.record("accepted as \(target)")
        } catch {
            #expect(error.code == i.code)
            #expect(error.detail == i.detail)
        }
    }

    @Test func urlInitialiserChecksWhatFoundationRepaired() throws {
        // URL(string:) percent-encodes a raw CRLF in a path; that form is
        // harmless on the wire and accepted from a URL value...
        let repaired = try #require(URL(string: "http://example.com/a\r\nb"))
        #expect(try HTTPRequestTarget(url: repaired).target == "/a%0D%0Ab")
        // ...while the string initialiser refuses the raw bytes.
        #expect(throws: UVURLError(.badURL)) { try HTTPRequestTarget(string: "http://example.com/a\r\nb") }
    }

    @Test func descriptionIsTheNormalisedURL() throws {
        #expect(try HTTPRequestTarget(string: "HTTP://Example.com:8080/p?q#f").description == "http://example.com:8080/p?q")
        #expect(ConnectionKey(scheme: .https, host: "::1", port: 443).description == "https://[::1]:443")
    }
}
