/// What the server announced in its SETTINGS (RFC 9113, section 6.5.2),
/// as far as the client's owner needs it.
///
/// Threading: a value type; `Sendable`.
///
/// ```swift
/// // in the delegate, on .settingsReceived(let settings):
/// let slots = settings.maxConcurrentStreams ?? 100  // the pool's per-connection limit
/// ```
public struct HTTP2PeerSettings: Sendable, Hashable {
    /// SETTINGS_MAX_CONCURRENT_STREAMS: how many streams we may have open
    /// at once; `nil` when the server set no limit.
    public var maxConcurrentStreams: Int?
    /// SETTINGS_INITIAL_WINDOW_SIZE: the window for our uploads per stream.
    public var initialWindowSize: Int
    /// SETTINGS_MAX_FRAME_SIZE.
    public var maxFrameSize: Int
    /// SETTINGS_MAX_HEADER_LIST_SIZE, `nil` when unlimited.
    public var maxHeaderListSize: Int?

    /// Creates a value (the connection reads them from nghttp2).
    public init(maxConcurrentStreams: Int?, initialWindowSize: Int, maxFrameSize: Int, maxHeaderListSize: Int?) {
        self.maxConcurrentStreams = maxConcurrentStreams
        self.initialWindowSize = initialWindowSize
        self.maxFrameSize = maxFrameSize
        self.maxHeaderListSize = maxHeaderListSize
    }
}
