import Foundation
import Testing
import UVCombineHTTP
import UVCombineHTTPCore

/// Proxy URLs, the environment's variables and the no-proxy list, with
/// curl's rules (each case checked against curl 7.88.1 with a proxy and
/// the variables set, where curl has the rule).
@Suite("Proxy configuration")
struct ProxyConfigurationTests {
    typealias Proxy = UVURLSession.Proxy
    typealias Proxies = UVURLSession.ProxyConfiguration

    static func target(_ string: String) throws -> HTTPRequestTarget {
        try HTTPRequestTarget(string: string)
    }

    @Test("proxy URLs: scheme optional, port 1080 by default, credentials percent-decoded, never shown")
    func proxyURLs() throws {
        let plain = try Proxy(url: "proxy.example:3128")
        #expect(plain.host == "proxy.example")
        #expect(plain.port == 3128)
        #expect(plain.username == nil && plain.password == nil)
        #expect(plain.description == "http://proxy.example:3128")

        let defaulted = try Proxy(url: "http://Proxy.Example")
        #expect(defaulted.host == "proxy.example")
        #expect(defaulted.port == 1080, "curl's default proxy port")

        let credentials = try Proxy(url: "http://al%40ice:s%3Acret@127.0.0.1:8080/")
        #expect(credentials.username == "al@ice")
        #expect(credentials.password == "s:cret")
        #expect(credentials.description == "http://al@ice:***@127.0.0.1:8080")
        #expect(credentials == Proxy(host: "127.0.0.1", port: 8080, username: "al@ice", password: "s:cret"))

        let userOnly = try Proxy(url: "bob@localhost:1")
        #expect(userOnly.username == "bob")
        #expect(userOnly.password == "")

        let v6 = try Proxy(url: "http://[::1]:3128")
        #expect(v6.host == "::1")
        #expect(v6.description == "http://[::1]:3128")
    }

    @Test("proxy URLs that cannot be used", arguments: [
        ("https://proxy:443", UVURLError.Code.unsupportedURL),
        ("socks5://proxy:1080", .unsupportedURL),
        ("http://", .badURL),
        ("http://proxy:0", .badURL),
        ("http://proxy:70000", .badURL),
        ("http://pro xy:1", .badURL),
    ])
    func badProxyURLs(url: String, code: UVURLError.Code) {
        #expect(throws: UVURLError(code)) { try Proxy(url: url) }
    }

    @Test("environment: curl's precedence (lower-case first, HTTP_PROXY ignored, ALL_PROXY last)")
    func environmentPrecedence() throws {
        func proxies(_ environment: [String: String]) -> (http: Int?, https: Int?, noProxy: String) {
            let configuration = Proxies(environment: environment)
            return (configuration.http?.port, configuration.https?.port, configuration.noProxy)
        }
        #expect(proxies([:]) == (nil, nil, ""))
        #expect(proxies(["HTTP_PROXY": "p:1"]) == (nil, nil, ""), "upper-case HTTP_PROXY is ignored (httpoxy)")
        #expect(proxies(["http_proxy": "p:1"]) == (1, nil, ""))
        #expect(proxies(["https_proxy": "p:1", "HTTPS_PROXY": "p:2"]) == (nil, 1, ""))
        #expect(proxies(["HTTPS_PROXY": "p:2", "ALL_PROXY": "p:3"]) == (3, 2, ""))
        #expect(proxies(["all_proxy": "p:4", "ALL_PROXY": "p:3"]) == (4, 4, ""))
        #expect(proxies(["http_proxy": "p:1", "all_proxy": "p:4"]) == (1, 4, ""))
        #expect(proxies(["http_proxy": "", "all_proxy": "p:4"]) == (4, 4, ""), "an empty variable is unset")
        #expect(proxies(["no_proxy": "a", "NO_PROXY": "b"]).noProxy == "a")
        #expect(proxies(["NO_PROXY": "b"]).noProxy == "b")
    }

    @Test("environment: a proxy URL that does not parse fails the requests it would carry, naming the variable")
    func environmentBadValue() throws {
        let configuration = Proxies(environment: ["https_proxy": "socks5://p:1", "http_proxy": "p:1", "no_proxy": "internal"])
        #expect(throws: UVURLError(.unsupportedURL)) { try configuration.proxy(for: Self.target("https://example.com/")) }
        let target = try Self.target("https://example.com/")
        do throws(UVURLError) {
            _ = try configuration.proxy(for: target)
        } catch {
            #expect(error.detail?.hasPrefix("https_proxy:") == true, "\(error)")
        }
        #expect(try configuration.proxy(for: Self.target("https://internal/")) == nil, "no_proxy still applies")
        #expect(try configuration.proxy(for: Self.target("http://example.com/"))?.port == 1)
    }

    @Test("routing: the scheme's proxy, none for Unix domain sockets")
    func routing() throws {
        let proxy = Proxy(host: "127.0.0.1", port: 3128)
        let onlyHTTPS = Proxies(https: proxy)
        #expect(try onlyHTTPS.proxy(for: Self.target("http://example.com/")) == nil)
        #expect(try onlyHTTPS.proxy(for: Self.target("https://example.com/")) == proxy)
        let both = Proxies(http: proxy, https: proxy)
        #expect(try both.proxy(for: Self.target("http+unix://%2Ftmp%2Fa.sock/x")) == nil)
        #expect(try Proxies.none.proxy(for: Self.target("http://example.com/")) == nil)
    }

    /// Whether `host` goes direct under `list`.
    static func bypasses(_ host: String, _ list: String) throws -> Bool {
        let proxies = Proxies(http: Proxy(host: "127.0.0.1", port: 3128), noProxy: list)
        let shown = host.contains(":") ? "[\(host)]" : host
        return try proxies.proxy(for: target("http://\(shown):8080/")) == nil
    }

    @Test("no-proxy list: curl's matching", arguments: [
        // (host, list, bypasses)
        ("example.com", "*", true),
        ("example.com", "*,other", false),          // * only as the whole list
        ("example.com", "", false),
        ("example.com", "example.com", true),
        ("www.example.com", "example.com", true),   // domain suffix
        ("myexample.com", "example.com", false),    // not at a dot
        ("example.com.org", "example.com", false),
        ("www.example.com", ".example.com", true),  // leading dot ignored
        ("example.com", ".example.com", true),
        ("example.com", "EXAMPLE.COM.", true),      // case and a trailing dot ignored
        ("example.com", "example.com:8080", false), // no ports in entries
        ("example.com", "other, example.com", true),
        ("example.com", "other ,,example.com", true),
        ("localhost", "other\texample.com", false),
        ("127.0.0.1", "127.0.0.1", true),
        ("127.0.0.1", "127.0.0.2", false),
        ("127.0.0.1", "127.0.0.0/8", true),
        ("128.0.0.1", "127.0.0.0/8", false),
        ("10.1.2.3", "10.1.0.0/16", true),
        ("10.2.2.3", "10.1.0.0/16", false),
        ("127.0.0.1", "127.0.0.0", false),
        ("127.0.0.1", "localhost", false),          // no resolution
        ("::1", "::1", true),
        ("fd00::5", "fd00::/8", true),
        ("fe80::5", "fd00::/8", false),
        ("::1", "127.0.0.1", false),
    ])
    func noProxyMatching(host: String, list: String, bypasses: Bool) throws {
        #expect(try Self.bypasses(host, list) == bypasses, "\(host) against \(list.debugDescription)")
    }

    @Test("the pool key: per proxy for http, per proxy and origin for https")
    func keys() throws {
        let proxy = Proxy(host: "127.0.0.1", port: 3128, username: "u", password: "p")
        let http = ConnectionKey(scheme: .http, host: proxy.host, port: proxy.port, proxy: proxy)
        #expect(http.description == "http via http://u:***@127.0.0.1:3128")
        let https = ConnectionKey(scheme: .https, host: "example.com", port: 443, proxy: proxy)
        #expect(https.description == "https://example.com:443 via http://u:***@127.0.0.1:3128")
        #expect(https != ConnectionKey(scheme: .https, host: "example.com", port: 443))
    }
}
