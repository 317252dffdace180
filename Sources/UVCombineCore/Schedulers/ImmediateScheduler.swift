/// A scheduler for performing synchronous actions.
///
/// Every action runs at once, on the calling thread, inside the `schedule`
/// call: dates, intervals and tolerances are ignored. A repeating action runs
/// once, immediately, and the returned cancellable does nothing (as in
/// Combine). Time never advances: `now` is always the same instant and every
/// stride is zero.
///
/// Use it where an operator wants a scheduler but the work should stay on
/// the current thread, and in tests of code that is generic over
/// ``Scheduler``.
///
/// ```swift
/// let c = [1, 2].publisher
///     .receive(on: ImmediateScheduler.shared)
///     .sink { print($0) }
/// // Prints: "1 2" (synchronously, on this thread)
/// ```
public struct ImmediateScheduler: Scheduler, Sendable {
    /// The time type used by the immediate scheduler: a single instant.
    ///
    /// ```swift
    /// let t = ImmediateScheduler.shared.now
    /// print(t.distance(to: t.advanced(by: 5))) // Prints: "Stride(magnitude: 0)"
    /// ```
    public struct SchedulerTimeType: Strideable, Sendable {
        @inlinable
        internal init() {}

        /// The distance to another instant: always zero.
        @inlinable
        public func distance(to other: ImmediateScheduler.SchedulerTimeType) -> Stride { 0 }

        /// The same instant: time does not advance on this scheduler.
        @inlinable
        public func advanced(by n: Stride) -> ImmediateScheduler.SchedulerTimeType { self }

        /// A distance between instants of the immediate scheduler, counted
        /// in an abstract unit. Every time-unit constructor (`.seconds(_:)`,
        /// `.milliseconds(_:)`, …) returns zero; integer and float literals
        /// give their integral magnitude, as in Combine.
        ///
        /// ```swift
        /// let s: ImmediateScheduler.SchedulerTimeType.Stride = .seconds(3)
        /// print(s.magnitude) // Prints: "0"
        /// ```
        public struct Stride: ExpressibleByFloatLiteral, Comparable, SignedNumeric, Codable, Hashable,
            Sendable, SchedulerTimeIntervalConvertible
        {
            /// A float literal is truncated to an integer magnitude.
            public typealias FloatLiteralType = Double
            /// Integer literals give the magnitude directly.
            public typealias IntegerLiteralType = Int
            /// The magnitude is an `Int`.
            public typealias Magnitude = Int

            /// The value of this stride.
            public var magnitude: Int

            /// Creates a stride of `value`.
            @inlinable
            public init(_ value: Int) { magnitude = value }

            /// Creates a stride from an integer literal.
            @inlinable
            public init(integerLiteral value: Int) { self.init(value) }

            /// Creates a stride from a float literal, truncating it.
            @inlinable
            public init(floatLiteral value: Double) { self.init(Int(value)) }

            /// Creates a stride when `source` fits in an `Int`.
            @inlinable
            public init?<T: BinaryInteger>(exactly source: T) {
                guard let value = Int(exactly: source) else { return nil }
                self.init(value)
            }

            /// Orders strides by magnitude.
            @inlinable public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.magnitude < rhs.magnitude }
            /// The product of the magnitudes.
            @inlinable public static func * (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude * rhs.magnitude) }
            /// The sum of two strides.
            @inlinable public static func + (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude + rhs.magnitude) }
            /// The difference of two strides.
            @inlinable public static func - (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude - rhs.magnitude) }
            /// Subtracts `rhs` from `lhs`.
            @inlinable public static func -= (lhs: inout Stride, rhs: Stride) { lhs.magnitude -= rhs.magnitude }
            /// Multiplies `lhs` by `rhs`.
            @inlinable public static func *= (lhs: inout Stride, rhs: Stride) { lhs.magnitude *= rhs.magnitude }
            /// Adds `rhs` to `lhs`.
            @inlinable public static func += (lhs: inout Stride, rhs: Stride) { lhs.magnitude += rhs.magnitude }

            /// Zero: the immediate scheduler has no notion of seconds.
            @inlinable public static func seconds(_ s: Int) -> Stride { 0 }
            /// Zero: the immediate scheduler has no notion of seconds.
            @inlinable public static func seconds(_ s: Double) -> Stride { 0 }
            /// Zero: the immediate scheduler has no notion of milliseconds.
            @inlinable public static func milliseconds(_ ms: Int) -> Stride { 0 }
            /// Zero: the immediate scheduler has no notion of microseconds.
            @inlinable public static func microseconds(_ us: Int) -> Stride { 0 }
            /// Zero: the immediate scheduler has no notion of nanoseconds.
            @inlinable public static func nanoseconds(_ ns: Int) -> Stride { 0 }
        }
    }

    /// The immediate scheduler accepts no options.
    public typealias SchedulerOptions = Never

    /// The shared instance of the immediate scheduler.
    ///
    /// ```swift
    /// ImmediateScheduler.shared.schedule { print("now") } // Prints: "now"
    /// ```
    public static let shared = ImmediateScheduler()

    @inlinable
    internal init() {}

    /// The immediate scheduler's only instant.
    @inlinable
    public var now: SchedulerTimeType { SchedulerTimeType() }

    /// Zero.
    @inlinable
    public var minimumTolerance: SchedulerTimeType.Stride { 0 }

    /// Runs `action` at once, on the calling thread.
    @inlinable
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        action()
    }

    /// Ignores `date` and runs `action` at once, on the calling thread.
    @inlinable
    public func schedule(after date: SchedulerTimeType,
                         tolerance: SchedulerTimeType.Stride,
                         options: SchedulerOptions?,
                         _ action: @escaping () -> Void) {
        action()
    }

    /// Ignores `date` and `interval`, runs `action` once at once, and
    /// returns a cancellable that does nothing.
    @inlinable
    @discardableResult
    public func schedule(after date: SchedulerTimeType,
                         interval: SchedulerTimeType.Stride,
                         tolerance: SchedulerTimeType.Stride,
                         options: SchedulerOptions?,
                         _ action: @escaping () -> Void) -> any Cancellable {
        action()
        return Subscriptions.empty
    }
}
