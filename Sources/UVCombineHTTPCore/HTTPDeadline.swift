/// A point in monotonic time, in nanoseconds, for the HTTP state machines.
///
/// The state machines never read a clock: every event that needs the time
/// carries it, and every timer they want appears as an action holding a
/// deadline. The owner on the loop passes `uv_hrtime()` (nanoseconds on a
/// monotonic clock); tests pass whatever instants they like.
///
/// ```swift
/// let start = HTTPDeadline(uptimeNanoseconds: 1_000)
/// let later = start.advanced(by: .seconds(2))
/// print(later.uptimeNanoseconds) // Prints: "2000001000"
/// ```
///
/// Threading: a value type; `Sendable`.
public struct HTTPDeadline: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Nanoseconds on the owner's monotonic clock.
    public let uptimeNanoseconds: UInt64

    /// Creates an instant from nanoseconds on a monotonic clock.
    public init(uptimeNanoseconds: UInt64) {
        self.uptimeNanoseconds = uptimeNanoseconds
    }

    /// The instant `duration` later, saturating at `UInt64.max` (so an
    /// absurdly long timeout means "never", not a wrapped early deadline).
    /// Negative durations count as zero.
    public func advanced(by duration: Duration) -> HTTPDeadline {
        advanced(byNanoseconds: HTTPDeadline.nanoseconds(of: duration))
    }

    /// The instant `nanoseconds` later, saturating at `UInt64.max`. The
    /// hot paths keep their timeouts converted once with
    /// ``nanoseconds(of:)``: `Duration.components` and the 128-bit
    /// arithmetic behind it cost about 300 instructions per conversion
    /// (callgrind, issue 17).
    internal func advanced(byNanoseconds nanoseconds: UInt64) -> HTTPDeadline {
        let (sum, overflow) = uptimeNanoseconds.addingReportingOverflow(nanoseconds)
        return HTTPDeadline(uptimeNanoseconds: overflow ? .max : sum)
    }

    /// The duration in whole nanoseconds, clamped to `0...UInt64.max`.
    /// `duration` in nanoseconds: negative durations are 0, and one too
    /// long for `UInt64` is `UInt64.max`.
    internal static func nanoseconds(of duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        if seconds < 0 || (seconds == 0 && attoseconds < 0) { return 0 }
        let (fromSeconds, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        let (sum, overflow2) = fromSeconds.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        return overflow2 ? .max : sum
    }

    /// Orders instants by time.
    public static func < (lhs: HTTPDeadline, rhs: HTTPDeadline) -> Bool {
        lhs.uptimeNanoseconds < rhs.uptimeNanoseconds
    }

    /// The nanoseconds followed by `ns`, for test failure messages.
    public var description: String { "\(uptimeNanoseconds)ns" }
}
