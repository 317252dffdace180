/// Counts frames of one kind from the peer in fixed windows of time and
/// says when a count passes its limit: the rapid-reset, PING-flood and
/// SETTINGS-flood guards. A value type; no clock (the owner's `now`).
///
/// Fixed windows rather than a token bucket: simpler, and a burst of twice
/// the limit across a window boundary is still bounded.
///
/// ```swift
/// var resets = HTTP2FrameRateLimit(limit: 2, windowNanoseconds: 1_000_000_000)
/// print(resets.record(now: 0), resets.record(now: 1), resets.record(now: 2)) // Prints: "true true false"
/// ```
public struct HTTP2FrameRateLimit: Sendable, Hashable {
    /// Frames allowed per window.
    public let limit: Int
    /// The window's length in nanoseconds.
    public let windowNanoseconds: UInt64
    /// When the current window began.
    public private(set) var windowStart: UInt64 = 0
    /// Frames counted in the current window.
    public private(set) var count = 0

    /// A limit of `limit` frames per `windowNanoseconds`.
    public init(limit: Int, windowNanoseconds: UInt64) {
        self.limit = limit
        self.windowNanoseconds = windowNanoseconds
    }

    /// Counts one frame at `now` (nanoseconds); whether it is within the
    /// limit.
    public mutating func record(now: UInt64) -> Bool {
        if count == 0 || now &- windowStart >= windowNanoseconds || now < windowStart {
            windowStart = now
            count = 0
        }
        count += 1
        return count <= limit
    }
}
