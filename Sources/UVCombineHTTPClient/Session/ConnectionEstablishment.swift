import UVCombineLoop

/// How a connection was established, for the task metrics: the instants
/// of its steps on the `uv_hrtime` clock (0: the step did not happen)
/// and its two ends' addresses. The transport fills it as the connection
/// is made; the session reads it once per connection, when a task that
/// collects metrics first uses it.
///
/// Threading: a value type, read on the loop thread.
package struct ConnectionEstablishment: Sendable, Equatable {
    package var domainLookupStart: UInt64 = 0
    package var domainLookupEnd: UInt64 = 0
    package var connectStart: UInt64 = 0
    package var connectEnd: UInt64 = 0
    package var secureConnectionStart: UInt64 = 0
    package var secureConnectionEnd: UInt64 = 0
    /// Nil for a Unix domain socket (and for a fake transport).
    package var localAddress: UVTCPAddress?
    package var remoteAddress: UVTCPAddress?
    /// The connection goes to a proxy (forwarding, or a CONNECT tunnel).
    package var isProxyConnection = false

    package init() {}
}

extension HTTPConnectionIO {
    /// Nothing known (a transport that does not say).
    package var establishment: ConnectionEstablishment { ConnectionEstablishment() }
}
