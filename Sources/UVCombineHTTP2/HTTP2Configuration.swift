/// The settings an ``HTTP2ClientConnection`` announces and the limits it
/// holds a peer to. The defaults suit a client talking to servers it does
/// not control.
///
/// Memory a peer can make us hold is bounded by: one stream window per
/// open stream (data received and not yet consumed), the header list size
/// per header block being received, the HPACK table sizes, and the
/// acknowledgement queue.
///
/// Threading: a value type; `Sendable`.
///
/// ```swift
/// var configuration = HTTP2Configuration()
/// configuration.initialStreamWindowSize = 1 << 20  // 1 MiB per stream
/// configuration.maxHeaderListSize = 32 * 1024
/// let connection = try HTTP2ClientConnection(configuration: configuration)
/// ```
public struct HTTP2Configuration: Sendable, Hashable {
    /// SETTINGS_INITIAL_WINDOW_SIZE: how many bytes the server may send on
    /// one stream before the stream's consumer asks for more. This is the
    /// most a stalled stream holds. 256 KiB by default.
    public var initialStreamWindowSize: Int32 = 256 * 1024
    /// The connection's receive window (raised from 65,535 with a
    /// WINDOW_UPDATE on stream 0). Received bytes return to it at once,
    /// whatever their stream's consumer does, so a stalled stream never
    /// holds up the others. 16 MiB by default.
    public var connectionWindowSize: Int32 = 16 * 1024 * 1024
    /// SETTINGS_MAX_HEADER_LIST_SIZE, announced and enforced on every
    /// response header block and trailer block (name + value + 32 bytes per
    /// field). 64 KiB by default.
    public var maxHeaderListSize: Int = 64 * 1024
    /// SETTINGS_HEADER_TABLE_SIZE: the HPACK dynamic table the server's
    /// encoder may use (nghttp2 refuses a larger table size update with
    /// COMPRESSION_ERROR). 4096 by default, the RFC's.
    public var headerTableSize: Int = 4096
    /// The largest HPACK dynamic table our encoder keeps, whatever the
    /// server announces. 4096 by default.
    public var maxDeflateTableSize: Int = 4096
    /// CONTINUATION frames accepted after one HEADERS frame. 8 by default
    /// (nghttp2's).
    public var maxContinuations: Int = 8
    /// Entries accepted in one SETTINGS frame. 32 by default.
    public var maxSettingsEntries: Int = 32
    /// PING and SETTINGS acknowledgements that may wait to be written
    /// (the owner is not pulling output) before the peer counts as
    /// flooding. 100 by default.
    public var maxOutboundAcks: Int = 100
    /// RST_STREAM frames the peer may send within ``floodWindow``. 200 by
    /// default.
    public var maxPeerResets: Int = 200
    /// PING frames (not acknowledgements) the peer may send within
    /// ``floodWindow``. 100 by default.
    public var maxPeerPings: Int = 100
    /// SETTINGS frames (not acknowledgements) the peer may send within
    /// ``floodWindow``. 100 by default.
    public var maxPeerSettingsFrames: Int = 100
    /// The window the three counts above are taken over. One second by
    /// default.
    public var floodWindow: Duration = .seconds(1)

    /// The defaults.
    public init() {}
}
