import UVCombineLoop
import UVCombineHTTPCore

// Added for UVCombineWebSocket (issue 34): the session's connection
// machinery (TCP, TLS with the session's verification and SNI, the proxy's
// CONNECT tunnel) for a protocol that takes the connection over after its
// own handshake. Additive only: nothing in the session engine uses it.
extension UVURLSession {
    /// Opens a connection to `target`'s host and port as the session would
    /// for `https` (TLS with the session's ``Configuration/tls``) or `http`,
    /// through the session's proxy when ``Configuration/proxy`` names one
    /// for the target; for plain `http` too, through a `CONNECT` tunnel
    /// rather than a forwarding proxy, since what follows is not HTTP.
    ///
    /// Events go to `handler` on the loop thread, none inside this call
    /// (the ``HTTPTransport`` contract). Not pooled: the caller owns the
    /// connection and closes it.
    ///
    /// Threading: loop thread only.
    ///
    /// - Throws: the proxy configuration's error for an environment
    ///   variable that did not parse.
    package func openStreamConnection(to target: HTTPRequestTarget,
                                      handler: any HTTPConnectionHandler) throws(UVURLError) -> any HTTPConnectionIO {
        loop.preconditionInLoop()
        let proxy = configuration.proxy.isActive ? try configuration.proxy.proxy(for: target) : nil
        let transport = UVLoopTransport(loop: loop, tls: configuration.tls,
                                        connectionAttemptDelay: configuration.connectionAttemptDelay)
        guard target.scheme == .http, let proxy else {
            // `https` (through the proxy's tunnel when there is one), or
            // direct `http`.
            let key = ConnectionKey(scheme: target.scheme, host: target.host, port: target.port, proxy: proxy)
            return transport.connect(to: key, handler: handler)
        }
        let tunnel = ProxyTunnelConnection(originHost: target.host, port: target.port, proxy: proxy, handler: handler)
        let lower = UVLoopConnection(handler: tunnel)
        lower.isToProxy = true
        var options = UVTCP.Options()
        options.connectionAttemptDelay = .milliseconds(250)
        lower.attempt = UVTCP.connect(host: proxy.host, port: proxy.port, on: loop, options: options) { [lower] result in
            lower.connectFinished(result)
        }
        tunnel.lower = lower
        return tunnel
    }
}
