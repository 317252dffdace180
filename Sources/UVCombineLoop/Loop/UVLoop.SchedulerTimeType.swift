import UVCombineCore

extension UVLoop {
    /// An instant on the loop's monotonic clock: nanoseconds of `uv_hrtime`,
    /// which never jumps with the wall clock.
    ///
    /// `loop.now` gives the current instant; deadlines are instants advanced
    /// by a ``Stride``. Arithmetic saturates instead of trapping: an instant
    /// advanced by a huge stride becomes the farthest representable one.
    ///
    /// Threading: a value type; use it anywhere.
    ///
    /// ```swift
    /// loop.schedule(after: loop.now.advanced(by: .seconds(1))) { print("one second later") }
    /// let elapsed = start.distance(to: loop.now) // a Stride
    /// ```
    @frozen
    public struct SchedulerTimeType: Strideable, Hashable, Codable, Sendable, CustomStringConvertible {
        /// Nanoseconds on the `uv_hrtime` clock (CLOCK_MONOTONIC).
        public var uptimeNanoseconds: UInt64

        /// The instant `uptimeNanoseconds` on the `uv_hrtime` clock.
        ///
        /// ```swift
        /// let instant = UVLoop.SchedulerTimeType(uptimeNanoseconds: 1_000_000)
        /// ```
        @inlinable
        public init(uptimeNanoseconds: UInt64) {
            self.uptimeNanoseconds = uptimeNanoseconds
        }

        /// The stride from this instant to `other`, clamped to the range of
        /// ``Stride``.
        ///
        /// ```swift
        /// let waited = deadline.distance(to: loop.now)
        /// ```
        @inlinable
        public func distance(to other: SchedulerTimeType) -> Stride {
            if other.uptimeNanoseconds >= uptimeNanoseconds {
                let delta = other.uptimeNanoseconds - uptimeNanoseconds
                return Stride(nanoseconds: delta > UInt64(Int.max) ? .max : Int(delta))
            } else {
                let delta = uptimeNanoseconds - other.uptimeNanoseconds
                return Stride(nanoseconds: delta >= UInt64(Int.max) ? .min : -Int(delta))
            }
        }

        /// This instant moved by `n`, saturating at the ends of the clock.
        ///
        /// ```swift
        /// let deadline = loop.now.advanced(by: .milliseconds(250))
        /// ```
        @inlinable
        public func advanced(by n: Stride) -> SchedulerTimeType {
            if n.nanoseconds >= 0 {
                let (sum, overflow) = uptimeNanoseconds.addingReportingOverflow(UInt64(n.nanoseconds))
                return SchedulerTimeType(uptimeNanoseconds: overflow ? .max : sum)
            } else {
                let delta = n.nanoseconds.magnitude
                let delta64 = UInt64(delta)
                return SchedulerTimeType(uptimeNanoseconds: delta64 > uptimeNanoseconds ? 0 : uptimeNanoseconds - delta64)
            }
        }

        /// The instant as seconds of uptime, e.g. `12345.678901234s`.
        public var description: String {
            let fraction = String(uptimeNanoseconds % 1_000_000_000)
            return "\(uptimeNanoseconds / 1_000_000_000).\(String(repeating: "0", count: 9 - fraction.count))\(fraction)s"
        }

        /// Decodes the nanosecond count.
        public init(from decoder: any Decoder) throws {
            uptimeNanoseconds = try decoder.singleValueContainer().decode(UInt64.self)
        }

        /// Encodes the nanosecond count as a single value.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(uptimeNanoseconds)
        }

        /// A signed interval of nanoseconds between two instants of the loop.
        ///
        /// As in Combine, integer and floating-point literals mean seconds
        /// (`0.5` is half a second), strides compare and add like numbers,
        /// and the constructors saturate instead of trapping on overflow.
        ///
        /// Threading: a value type; use it anywhere.
        ///
        /// ```swift
        /// let half: UVLoop.SchedulerTimeType.Stride = 0.5
        /// let sum = half + .milliseconds(250) // 0.75 s
        /// print(sum.timeInterval) // Prints: "0.75"
        /// ```
        @frozen
        public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric,
            ExpressibleByFloatLiteral, Hashable, Codable, Sendable, CustomStringConvertible
        {
            /// Integer literals are whole seconds.
            public typealias IntegerLiteralType = Int
            /// Floating-point literals are seconds.
            public typealias FloatLiteralType = Double
            /// The nanosecond count, as for Dispatch's stride.
            public typealias Magnitude = Int

            /// The interval in nanoseconds.
            public var nanoseconds: Int

            /// The interval in nanoseconds, as Combine's Dispatch stride
            /// defines `magnitude` (it keeps the sign).
            @inlinable
            public var magnitude: Int { nanoseconds }

            /// The interval in seconds.
            ///
            /// ```swift
            /// print(UVLoop.SchedulerTimeType.Stride.milliseconds(1500).timeInterval) // Prints: "1.5"
            /// ```
            @inlinable
            public var timeInterval: Double { Double(nanoseconds) / 1e9 }

            /// An interval of `nanoseconds`.
            ///
            /// ```swift
            /// let tiny = UVLoop.SchedulerTimeType.Stride(nanoseconds: 500)
            /// ```
            @inlinable
            public init(nanoseconds: Int) {
                self.nanoseconds = nanoseconds
            }

            /// An interval of `timeInterval` seconds, saturating; NaN is zero.
            ///
            /// ```swift
            /// let quarter = UVLoop.SchedulerTimeType.Stride(0.25)
            /// ```
            @inlinable
            public init(_ timeInterval: Double) {
                self = .seconds(timeInterval)
            }

            /// An interval of `value` whole seconds.
            @inlinable
            public init(integerLiteral value: Int) {
                self = .seconds(value)
            }

            /// An interval of `value` seconds.
            @inlinable
            public init(floatLiteral value: Double) {
                self = .seconds(value)
            }

            /// An interval of `source` whole seconds, or `nil` when it does
            /// not fit.
            @inlinable
            public init?<T: BinaryInteger>(exactly source: T) {
                guard let seconds = Int(exactly: source) else { return nil }
                let (ns, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
                if overflow { return nil }
                self.init(nanoseconds: ns)
            }

            @inlinable
            internal static func scaled(_ value: Int, by factor: Int) -> Stride {
                let (ns, overflow) = value.multipliedReportingOverflow(by: factor)
                if overflow { return Stride(nanoseconds: value < 0 ? .min : .max) }
                return Stride(nanoseconds: ns)
            }

            /// An interval of `s` whole seconds, saturating.
            ///
            /// ```swift
            /// loop.schedule(after: loop.now.advanced(by: .seconds(1))) { print("tick") }
            /// ```
            @inlinable
            public static func seconds(_ s: Int) -> Stride { scaled(s, by: 1_000_000_000) }

            /// An interval of `s` seconds, saturating; NaN is zero.
            ///
            /// ```swift
            /// let half = UVLoop.SchedulerTimeType.Stride.seconds(0.5)
            /// ```
            @inlinable
            public static func seconds(_ s: Double) -> Stride {
                let ns = (s * 1e9).rounded()
                if ns.isNaN { return Stride(nanoseconds: 0) }
                if ns >= 9.2e18 { return Stride(nanoseconds: .max) }
                if ns <= -9.2e18 { return Stride(nanoseconds: .min) }
                return Stride(nanoseconds: Int(ns))
            }

            /// An interval of `ms` milliseconds, saturating.
            ///
            /// ```swift
            /// let period = UVLoop.SchedulerTimeType.Stride.milliseconds(10)
            /// ```
            @inlinable
            public static func milliseconds(_ ms: Int) -> Stride { scaled(ms, by: 1_000_000) }

            /// An interval of `us` microseconds, saturating.
            ///
            /// ```swift
            /// let slack = UVLoop.SchedulerTimeType.Stride.microseconds(50)
            /// ```
            @inlinable
            public static func microseconds(_ us: Int) -> Stride { scaled(us, by: 1_000) }

            /// An interval of `ns` nanoseconds.
            ///
            /// ```swift
            /// let tiny = UVLoop.SchedulerTimeType.Stride.nanoseconds(100)
            /// ```
            @inlinable
            public static func nanoseconds(_ ns: Int) -> Stride { Stride(nanoseconds: ns) }

            /// The zero interval.
            @inlinable
            public static var zero: Stride { Stride(nanoseconds: 0) }

            /// Orders by length.
            @inlinable
            public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

            /// The sum, saturating.
            @inlinable
            public static func + (lhs: Stride, rhs: Stride) -> Stride {
                let (sum, overflow) = lhs.nanoseconds.addingReportingOverflow(rhs.nanoseconds)
                if overflow { return Stride(nanoseconds: rhs.nanoseconds < 0 ? .min : .max) }
                return Stride(nanoseconds: sum)
            }

            /// The difference, saturating.
            @inlinable
            public static func - (lhs: Stride, rhs: Stride) -> Stride {
                let (difference, overflow) = lhs.nanoseconds.subtractingReportingOverflow(rhs.nanoseconds)
                if overflow { return Stride(nanoseconds: rhs.nanoseconds < 0 ? .max : .min) }
                return Stride(nanoseconds: difference)
            }

            /// The product of the nanosecond counts, saturating (what
            /// Combine's Dispatch stride computes).
            @inlinable
            public static func * (lhs: Stride, rhs: Stride) -> Stride {
                let (product, overflow) = lhs.nanoseconds.multipliedReportingOverflow(by: rhs.nanoseconds)
                if overflow {
                    return Stride(nanoseconds: (lhs.nanoseconds < 0) == (rhs.nanoseconds < 0) ? .max : .min)
                }
                return Stride(nanoseconds: product)
            }

            /// The stride repeated `rhs` times, saturating.
            ///
            /// A literal multiplier is read as a stride of seconds (as for
            /// Combine's Dispatch stride), so pass an `Int` value:
            ///
            /// ```swift
            /// let ticks = 10
            /// let total = UVLoop.SchedulerTimeType.Stride.milliseconds(5) * ticks // 50 ms
            /// ```
            @inlinable
            public static func * (lhs: Stride, rhs: Int) -> Stride {
                lhs * Stride(nanoseconds: rhs)
            }

            /// Adds in place, saturating.
            @inlinable
            public static func += (lhs: inout Stride, rhs: Stride) { lhs = lhs + rhs }

            /// Subtracts in place, saturating.
            @inlinable
            public static func -= (lhs: inout Stride, rhs: Stride) { lhs = lhs - rhs }

            /// Multiplies in place, saturating.
            @inlinable
            public static func *= (lhs: inout Stride, rhs: Stride) { lhs = lhs * rhs }

            /// The opposite interval, saturating (`-Int.min` is `Int.max`).
            @inlinable
            public static prefix func - (operand: Stride) -> Stride {
                Stride(nanoseconds: operand.nanoseconds == .min ? .max : -operand.nanoseconds)
            }

            /// Negates in place, saturating.
            @inlinable
            public mutating func negate() { self = -self }

            /// The interval in seconds, e.g. `0.25s`.
            public var description: String { "\(timeInterval)s" }

            /// Decodes the nanosecond count.
            public init(from decoder: any Decoder) throws {
                nanoseconds = try decoder.singleValueContainer().decode(Int.self)
            }

            /// Encodes the nanosecond count as a single value.
            public func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(nanoseconds)
            }
        }
    }
}
