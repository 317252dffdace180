import Foundation
import UVCombineCore

// The one implementation of the `Date`-based time types Combine declares on
// `RunLoop` and `OperationQueue`. Combine gives each scheduler its own
// `SchedulerTimeType` and `Stride` structs with the same members; we keep
// them as separate public types (so `RunLoop.SchedulerTimeType` is not
// `OperationQueue.SchedulerTimeType`, as in Combine) and let both conform to
// the two underscored protocols below, whose extensions hold the members.
// The protocols are public only because the members they supply witness
// public requirements (Strideable, SignedNumeric, ...); the underscore
// marks them as an implementation detail, not API.

/// Implementation detail of `RunLoop.SchedulerTimeType` and
/// `OperationQueue.SchedulerTimeType`: an instant that is a `Date`, with
/// `distance(to:)` and `advanced(by:)` in seconds. Not API: conform to it
/// only through those two types.
///
/// ```swift
/// let later = RunLoop.SchedulerTimeType(Date()).advanced(by: .milliseconds(250))
/// ```
public protocol _DateSchedulerTime: Strideable, Codable, Hashable, Sendable where Stride: _SecondsSchedulerStride {
    /// The date represented by this time.
    var date: Date { get set }
    /// A time at `date`.
    init(_ date: Date)
}

extension _DateSchedulerTime {
    /// The distance to `other`, in seconds.
    ///
    /// ```swift
    /// let gap = start.distance(to: end) // end.date - start.date, in seconds
    /// ```
    @inlinable
    public func distance(to other: Self) -> Stride {
        Stride(other.date.timeIntervalSinceReferenceDate - date.timeIntervalSinceReferenceDate)
    }

    /// The time `n` seconds later (earlier for a negative stride).
    ///
    /// ```swift
    /// let later = RunLoop.main.now.advanced(by: 0.5)
    /// ```
    @inlinable
    public func advanced(by n: Stride) -> Self {
        Self(date + n.magnitude)
    }
}

/// Implementation detail of `RunLoop.SchedulerTimeType.Stride` and
/// `OperationQueue.SchedulerTimeType.Stride`: an interval that is a
/// `TimeInterval` in seconds, with literals, arithmetic and the
/// `SchedulerTimeIntervalConvertible` constructors. Not API.
///
/// ```swift
/// let stride: RunLoop.SchedulerTimeType.Stride = .milliseconds(1500)
/// print(stride.timeInterval) // Prints: "1.5"
/// ```
public protocol _SecondsSchedulerStride: ExpressibleByFloatLiteral, Comparable, SignedNumeric, Codable, Hashable,
    Sendable, SchedulerTimeIntervalConvertible
    where FloatLiteralType == TimeInterval, IntegerLiteralType == TimeInterval, Magnitude == TimeInterval
{
    /// The value of this time interval in seconds.
    var magnitude: TimeInterval { get set }
    /// A stride of `timeInterval` seconds.
    init(_ timeInterval: TimeInterval)
}

extension _SecondsSchedulerStride {
    /// The value of this time interval in seconds.
    @inlinable
    public var timeInterval: TimeInterval { magnitude }

    /// A stride of `value` seconds.
    ///
    /// ```swift
    /// let stride: RunLoop.SchedulerTimeType.Stride = 2
    /// ```
    @inlinable
    public init(integerLiteral value: TimeInterval) { self.init(value) }

    /// A stride of `value` seconds.
    ///
    /// ```swift
    /// let stride: RunLoop.SchedulerTimeType.Stride = 0.25
    /// ```
    @inlinable
    public init(floatLiteral value: TimeInterval) { self.init(value) }

    /// A stride of `source` seconds, if a `TimeInterval` holds it exactly.
    ///
    /// ```swift
    /// let stride = RunLoop.SchedulerTimeType.Stride(exactly: 3) // 3 s
    /// ```
    @inlinable
    public init?<T: BinaryInteger>(exactly source: T) {
        guard let value = TimeInterval(exactly: source) else { return nil }
        self.init(value)
    }

    /// Orders by length.
    ///
    /// ```swift
    /// RunLoop.SchedulerTimeType.Stride(1) < .seconds(2) // true
    /// ```
    @inlinable
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.magnitude < rhs.magnitude }
    /// Multiplies the lengths in seconds.
    ///
    /// ```swift
    /// let six = RunLoop.SchedulerTimeType.Stride(2) * 3 // 6 s
    /// ```
    @inlinable
    public static func * (lhs: Self, rhs: Self) -> Self { Self(lhs.magnitude * rhs.magnitude) }
    /// Adds the lengths.
    ///
    /// ```swift
    /// let total = RunLoop.SchedulerTimeType.Stride(1) + .milliseconds(500) // 1.5 s
    /// ```
    @inlinable
    public static func + (lhs: Self, rhs: Self) -> Self { Self(lhs.magnitude + rhs.magnitude) }
    /// Subtracts the lengths.
    ///
    /// ```swift
    /// let rest = RunLoop.SchedulerTimeType.Stride(1) - .milliseconds(250) // 0.75 s
    /// ```
    @inlinable
    public static func - (lhs: Self, rhs: Self) -> Self { Self(lhs.magnitude - rhs.magnitude) }
    /// Multiplies in place.
    ///
    /// ```swift
    /// var stride = RunLoop.SchedulerTimeType.Stride(2); stride *= 2 // 4 s
    /// ```
    @inlinable
    public static func *= (lhs: inout Self, rhs: Self) { lhs.magnitude *= rhs.magnitude }
    /// Adds in place.
    ///
    /// ```swift
    /// var stride = RunLoop.SchedulerTimeType.Stride(2); stride += 1 // 3 s
    /// ```
    @inlinable
    public static func += (lhs: inout Self, rhs: Self) { lhs.magnitude += rhs.magnitude }
    /// Subtracts in place.
    ///
    /// ```swift
    /// var stride = RunLoop.SchedulerTimeType.Stride(2); stride -= 1 // 1 s
    /// ```
    @inlinable
    public static func -= (lhs: inout Self, rhs: Self) { lhs.magnitude -= rhs.magnitude }

    /// `s` seconds.
    ///
    /// ```swift
    /// let stride: RunLoop.SchedulerTimeType.Stride = .seconds(2)
    /// ```
    @inlinable
    public static func seconds(_ s: Int) -> Self { Self(TimeInterval(s)) }
    /// `s` seconds.
    ///
    /// ```swift
    /// let stride: RunLoop.SchedulerTimeType.Stride = .seconds(0.5)
    /// ```
    @inlinable
    public static func seconds(_ s: Double) -> Self { Self(s) }
    /// `ms` milliseconds.
    ///
    /// ```swift
    /// let stride: RunLoop.SchedulerTimeType.Stride = .milliseconds(250)
    /// ```
    @inlinable
    public static func milliseconds(_ ms: Int) -> Self { Self(TimeInterval(ms) / 1_000) }
    /// `us` microseconds.
    ///
    /// ```swift
    /// let stride: RunLoop.SchedulerTimeType.Stride = .microseconds(100)
    /// ```
    @inlinable
    public static func microseconds(_ us: Int) -> Self { Self(TimeInterval(us) / 1_000_000) }
    /// `ns` nanoseconds.
    ///
    /// ```swift
    /// let stride: RunLoop.SchedulerTimeType.Stride = .nanoseconds(1_000)
    /// ```
    @inlinable
    public static func nanoseconds(_ ns: Int) -> Self { Self(TimeInterval(ns) / 1_000_000_000) }
}
