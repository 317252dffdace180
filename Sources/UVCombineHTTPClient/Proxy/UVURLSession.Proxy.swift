import UVCombineHTTPCore

extension UVURLSession {
    /// An HTTP proxy: where it listens and, optionally, the credentials
    /// sent to it with `Proxy-Authorization: Basic` (``HTTPProxy``, in the
    /// protocol core, where connection keys name it).
    ///
    /// ```swift
    /// let proxy = try UVURLSession.Proxy(url: "http://alice:secret@proxy.example:3128")
    /// print(proxy) // Prints: "http://alice:***@proxy.example:3128"
    /// ```
    ///
    /// Threading: a value type; `Sendable`.
    public typealias Proxy = HTTPProxy

    /// Which requests go through which proxy: ``Configuration/proxy``.
    ///
    /// - `http` URLs use ``http``: the request is sent to the proxy in
    ///   absolute form (`GET http://example.com/a HTTP/1.1`, with `Host`),
    ///   with `Proxy-Authorization: Basic` when the proxy has credentials.
    ///   Connections to the proxy are pooled per proxy (not per origin:
    ///   one keep-alive connection carries requests for any host), at most
    ///   ``Configuration/maximumConnectionsPerHost`` of them. The proxy's
    ///   answers are the responses: a `407` from the proxy is delivered as
    ///   any response is, as curl does.
    /// - `https` URLs use ``https``: a `CONNECT example.com:443` request
    ///   (with `Host` and `Proxy-Authorization`) opens a tunnel, then TLS
    ///   runs to the origin inside it (SNI and certificate verification
    ///   for the origin's host, never the proxy's). Tunnels are pooled per
    ///   proxy and origin. A `CONNECT` answered with anything but 2xx
    ///   fails the task: `.proxyAuthenticationRequired` for 407,
    ///   `.proxyConnectFailed` otherwise, the status in `detail`; the
    ///   proxy's body is never read as the origin's response. The connect
    ///   timeout covers the TCP connect, the `CONNECT` exchange and the
    ///   TLS handshake.
    /// - A host that ``noProxy`` names is reached directly, as are
    ///   requests over a Unix domain socket. Each redirect is routed
    ///   afresh for its own URL.
    /// - A proxy that does not resolve fails with `.cannotFindProxyHost`,
    ///   one that refuses the connection with `.cannotConnectToProxy`.
    ///
    /// The default is ``none``: a session does not read the environment
    /// unless asked to (``environment``), as AsyncHTTPClient; `URLSession`
    /// on Linux reads it (through libcurl). A server process's environment
    /// is shared with every tool it runs, and CGI-style servers have put a
    /// request's `Proxy` header into `HTTP_PROXY` ("httpoxy"), so routing
    /// every request elsewhere is something to opt into.
    ///
    /// ```swift
    /// var configuration = UVURLSession.Configuration()
    /// configuration.proxy = .environment // http_proxy, HTTPS_PROXY, NO_PROXY, ...
    /// // or explicitly:
    /// let proxy = try UVURLSession.Proxy(url: "http://proxy.internal:3128")
    /// configuration.proxy = UVURLSession.ProxyConfiguration(http: proxy, https: proxy,
    ///                                                       noProxy: "localhost,.internal")
    /// ```
    ///
    /// Threading: a value type; `Sendable`.
    public struct ProxyConfiguration: Sendable, Equatable {
        /// The proxy for `http` URLs, or nil to connect directly.
        public var http: Proxy?
        /// The proxy for `https` URLs (tunnelled with `CONNECT`), or nil
        /// to connect directly.
        public var https: Proxy?
        /// Hosts reached without a proxy, in curl's `NO_PROXY` syntax: a
        /// list separated by commas (or blanks) where `*` alone matches
        /// every host; a name matches itself and every name under it
        /// (`example.com` matches `example.com` and `www.example.com`, not
        /// `myexample.com`; a leading or trailing dot is ignored, case
        /// too); an IP address matches itself, or a range in CIDR notation
        /// (`10.0.0.0/8`, `fd00::/8`; IPv6 without brackets). Entries never
        /// carry a port: `example.com` matches on any port
        /// (`example.com:8080` matches nothing, as in curl). Empty: no
        /// exception.
        public var noProxy: String
        /// Why an environment variable was not used (a proxy URL that
        /// does not parse): requests it would have routed fail with this
        /// error instead of silently going direct.
        package var httpFailure: UVURLError?
        package var httpsFailure: UVURLError?

        /// Proxies given explicitly.
        ///
        /// ```swift
        /// let proxy = UVURLSession.Proxy(host: "127.0.0.1", port: 3128)
        /// let proxies = UVURLSession.ProxyConfiguration(http: proxy, https: proxy, noProxy: "localhost")
        /// ```
        public init(http: Proxy? = nil, https: Proxy? = nil, noProxy: String = "") {
            self.http = http
            self.https = https
            self.noProxy = noProxy
        }

        /// No proxy: every request goes directly. The default.
        public static var none: ProxyConfiguration { ProxyConfiguration() }

        /// The process environment's proxies, read now, with curl's rules
        /// (``init(environment:)``).
        ///
        /// ```swift
        /// configuration.proxy = .environment
        /// ```
        public static var environment: ProxyConfiguration {
            ProxyConfiguration(environment: ProcessEnvironment.variables())
        }

        /// Proxies from environment variables, with curl's precedence:
        ///
        /// - `http` URLs: `http_proxy`, then `all_proxy`, then `ALL_PROXY`.
        ///   Upper-case `HTTP_PROXY` is ignored, as curl ignores it: a CGI
        ///   server sets `HTTP_PROXY` from a request's `Proxy` header.
        /// - `https` URLs: `https_proxy`, then `HTTPS_PROXY`, then
        ///   `all_proxy`, then `ALL_PROXY`.
        /// - `no_proxy`, then `NO_PROXY`: ``noProxy``.
        ///
        /// An empty variable counts as unset. A value is parsed as
        /// ``Proxy/init(url:)`` parses it; one that does not parse (a
        /// `socks5://` proxy, say) is not skipped: the requests it would
        /// carry fail with its error, naming the variable.
        ///
        /// ```swift
        /// let proxies = UVURLSession.ProxyConfiguration(environment: ["https_proxy": "proxy:3128"])
        /// print(proxies.https?.port) // Prints: "Optional(3128)"
        /// ```
        public init(environment: [String: String]) {
            func first(_ names: [String]) -> (name: String, value: String)? {
                for name in names {
                    if let value = environment[name], !value.isEmpty { return (name, value) }
                }
                return nil
            }
            func parse(_ names: [String]) -> (Proxy?, UVURLError?) {
                guard let (name, value) = first(names) else { return (nil, nil) }
                do throws(UVURLError) {
                    return (try Proxy(url: value), nil)
                } catch {
                    return (nil, UVURLError(error.code, detail: "\(name): \(error.detail ?? error.code.description)"))
                }
            }
            self.init()
            (http, httpFailure) = parse(["http_proxy", "all_proxy", "ALL_PROXY"])
            (https, httpsFailure) = parse(["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"])
            noProxy = first(["no_proxy", "NO_PROXY"])?.value ?? ""
        }

        /// Whether any request may be routed through a proxy (the engine
        /// skips routing entirely when not).
        package var isActive: Bool {
            http != nil || https != nil || httpFailure != nil || httpsFailure != nil
        }

        /// The proxy a request to `target` goes through, or nil to connect
        /// directly.
        ///
        /// ```swift
        /// let proxies = UVURLSession.ProxyConfiguration(http: proxy, noProxy: ".internal")
        /// let target = try HTTPRequestTarget(string: "http://db.internal/")
        /// print(try proxies.proxy(for: target) == nil) // Prints: "true"
        /// ```
        ///
        /// - Throws: the error of an environment variable that did not
        ///   parse, when it would have applied.
        package func proxy(for target: HTTPRequestTarget) throws(UVURLError) -> Proxy? {
            if target.socketPath != nil { return nil }
            let proxy: Proxy?
            let failure: UVURLError?
            switch target.scheme {
            case .http: (proxy, failure) = (http, httpFailure)
            case .https: (proxy, failure) = (https, httpsFailure)
            }
            if proxy == nil && failure == nil { return nil }
            if NoProxyList.matches(host: target.host, list: noProxy) { return nil }
            if let failure { throw failure }
            return proxy
        }
    }
}

extension Character {
    /// A space or tab (and the other horizontal white space Unicode names),
    /// what a proxy setting may be padded with.
    fileprivate var isProxyBlank: Bool {
        isWhitespace && !isNewline
    }
}
