extension Subscribers {
    /// A requested number of items, sent to a publisher from a subscriber
    /// through the subscription.
    ///
    /// A trivial value type with saturating arithmetic, as in Combine: adding
    /// to `.unlimited` stays `.unlimited`, overflow becomes `.unlimited`, and
    /// a subtraction that would go negative gives `.none`. Creating
    /// `.max(negative)` traps with a message naming the rule.
    ///
    /// ```swift
    /// var demand = Subscribers.Demand.max(2)
    /// demand += 1         // max(3)
    /// demand -= 5         // max(0)
    /// print(demand + .unlimited) // Prints: "unlimited"
    /// ```
    @frozen
    public struct Demand: Equatable, Comparable, Hashable, Codable, CustomStringConvertible, Sendable {
        /// `UInt.max` stands for `.unlimited`; any other value for `.max(n)`
        /// with `n <= Int.max`.
        @usableFromInline internal let rawValue: UInt

        @inlinable @inline(__always)
        internal init(rawValue: UInt) {
            self.rawValue = rawValue
        }

        /// A request for as many values as the publisher can produce.
        // Computed, not `static let`: a stored static is reached through a
        // lazy-initialisation check on every use, on the hot path.
        @inlinable @inline(__always)
        public static var unlimited: Demand { Demand(rawValue: .max) }

        /// A request for no elements from the publisher. Requesting it from a
        /// subscription traps; it is a valid return from `receive(_:)`.
        @inlinable @inline(__always)
        public static var none: Demand { Demand(rawValue: 0) }

        /// Creates a demand for the given maximum number of elements.
        ///
        /// Traps when `value` is negative.
        @inlinable @inline(__always)
        public static func max(_ value: Int) -> Demand {
            // fatalError rather than precondition: release builds drop a
            // precondition's message, and the message names the rule.
            if value < 0 { violation("Subscribers.Demand.max(\(value)): demand cannot be negative") }
            return Demand(rawValue: UInt(value))
        }

        /// The number of requested values, or `nil` for `.unlimited`.
        @inlinable
        public var max: Int? {
            rawValue == .max ? nil : Int(rawValue)
        }

        /// `unlimited` or `max(n)`, as Combine prints demand.
        public var description: String {
            rawValue == .max ? "unlimited" : "max(\(rawValue))"
        }

        // MARK: Arithmetic (saturating)

        /// The sum of two demands; `.unlimited` if either is, or on overflow.
        @inlinable @inline(__always)
        public static func + (lhs: Demand, rhs: Demand) -> Demand {
            if lhs.rawValue == .max || rhs.rawValue == .max { return .unlimited }
            let (sum, overflow) = Int(lhs.rawValue).addingReportingOverflow(Int(rhs.rawValue))
            return overflow ? .unlimited : Demand(rawValue: UInt(sum))
        }

        /// Adds `rhs` to `lhs`.
        @inlinable @inline(__always)
        public static func += (lhs: inout Demand, rhs: Demand) {
            lhs = lhs + rhs
        }

        /// The sum of a demand and an integer; `.unlimited` stays unlimited,
        /// overflow becomes `.unlimited`, a negative result becomes `.none`.
        @inlinable @inline(__always)
        public static func + (lhs: Demand, rhs: Int) -> Demand {
            if lhs.rawValue == .max { return .unlimited }
            let (sum, overflow) = Int(lhs.rawValue).addingReportingOverflow(rhs)
            if overflow { return rhs > 0 ? .unlimited : .none }
            return sum < 0 ? .none : Demand(rawValue: UInt(sum))
        }

        /// Adds `rhs` to `lhs`.
        @inlinable @inline(__always)
        public static func += (lhs: inout Demand, rhs: Int) {
            lhs = lhs + rhs
        }

        /// The product of a demand and an integer; `.unlimited` stays
        /// unlimited, overflow (either way) becomes `.unlimited` as in Combine,
        /// a negative result `.none`.
        @inlinable
        public static func * (lhs: Demand, rhs: Int) -> Demand {
            if lhs.rawValue == .max { return .unlimited }
            let (product, overflow) = Int(lhs.rawValue).multipliedReportingOverflow(by: rhs)
            if overflow { return .unlimited }
            return product < 0 ? .none : Demand(rawValue: UInt(product))
        }

        /// Multiplies `lhs` by `rhs`.
        @inlinable
        public static func *= (lhs: inout Demand, rhs: Int) {
            lhs = lhs * rhs
        }

        /// The difference of two demands. Anything subtracted from
        /// `.unlimited` leaves `.unlimited`; `.unlimited` subtracted from a
        /// finite demand gives `.none`; a negative result gives `.none`.
        @inlinable @inline(__always)
        public static func - (lhs: Demand, rhs: Demand) -> Demand {
            if lhs.rawValue == .max { return .unlimited }
            if rhs.rawValue == .max { return .none }
            return lhs.rawValue >= rhs.rawValue ? Demand(rawValue: lhs.rawValue - rhs.rawValue) : .none
        }

        /// Subtracts `rhs` from `lhs`.
        @inlinable @inline(__always)
        public static func -= (lhs: inout Demand, rhs: Demand) {
            lhs = lhs - rhs
        }

        /// The difference of a demand and an integer; `.unlimited` stays
        /// unlimited, a negative result or an overflow (subtracting a large
        /// negative number) gives `.none`, as in Combine.
        @inlinable @inline(__always)
        public static func - (lhs: Demand, rhs: Int) -> Demand {
            if lhs.rawValue == .max { return .unlimited }
            let (difference, overflow) = Int(lhs.rawValue).subtractingReportingOverflow(rhs)
            if overflow || difference < 0 { return .none }
            return Demand(rawValue: UInt(difference))
        }

        /// Subtracts `rhs` from `lhs`.
        @inlinable @inline(__always)
        public static func -= (lhs: inout Demand, rhs: Int) {
            lhs = lhs - rhs
        }

        // MARK: Comparison with Demand

        /// Orders demands; `.unlimited` is greater than every finite demand.
        @inlinable @inline(__always)
        public static func < (lhs: Demand, rhs: Demand) -> Bool {
            lhs.rawValue < rhs.rawValue
        }

        // MARK: Comparison with Int

        /// Whether a demand is greater than an integer (`.unlimited` always is).
        @inlinable public static func > (lhs: Demand, rhs: Int) -> Bool {
            rhs < 0 || lhs.rawValue > UInt(rhs)
        }
        /// Whether a demand is at least an integer (`.unlimited` always is).
        @inlinable public static func >= (lhs: Demand, rhs: Int) -> Bool {
            rhs < 0 || lhs.rawValue >= UInt(rhs)
        }
        /// Whether an integer is greater than a demand (never for `.unlimited`).
        @inlinable public static func > (lhs: Int, rhs: Demand) -> Bool {
            lhs >= 0 && UInt(lhs) > rhs.rawValue
        }
        /// Whether an integer is at least a demand (never for `.unlimited`).
        @inlinable public static func >= (lhs: Int, rhs: Demand) -> Bool {
            lhs >= 0 && UInt(lhs) >= rhs.rawValue
        }
        /// Whether a demand is less than an integer (never for `.unlimited`).
        @inlinable public static func < (lhs: Demand, rhs: Int) -> Bool {
            rhs >= 0 && lhs.rawValue < UInt(rhs)
        }
        /// Whether a demand is at most an integer (never for `.unlimited`).
        @inlinable public static func <= (lhs: Demand, rhs: Int) -> Bool {
            rhs >= 0 && lhs.rawValue <= UInt(rhs)
        }
        /// Whether an integer is less than a demand (`.unlimited` always is).
        @inlinable public static func < (lhs: Int, rhs: Demand) -> Bool {
            lhs < 0 || UInt(lhs) < rhs.rawValue
        }
        /// Whether an integer is at most a demand (`.unlimited` always is).
        @inlinable public static func <= (lhs: Int, rhs: Demand) -> Bool {
            lhs < 0 || UInt(lhs) <= rhs.rawValue
        }
        /// Whether a demand equals an integer (never for `.unlimited`).
        @inlinable public static func == (lhs: Demand, rhs: Int) -> Bool {
            rhs >= 0 && lhs.rawValue == UInt(rhs)
        }
        /// Whether a demand differs from an integer (always for `.unlimited`).
        @inlinable public static func != (lhs: Demand, rhs: Int) -> Bool {
            !(lhs == rhs)
        }
        /// Whether an integer equals a demand (never for `.unlimited`).
        @inlinable public static func == (lhs: Int, rhs: Demand) -> Bool {
            rhs == lhs
        }
        /// Whether an integer differs from a demand (always for `.unlimited`).
        @inlinable public static func != (lhs: Int, rhs: Demand) -> Bool {
            !(rhs == lhs)
        }

        // MARK: Codable — a single unsigned integer, as Combine encodes it.

        /// The number Combine writes for `.unlimited`: `Int.max + 1` (its
        /// raw value for `.unlimited`), not `UInt.max`.
        @usableFromInline internal static var encodedUnlimited: UInt { UInt(Int.max) + 1 }

        /// Creates a demand from a decoder: a single unsigned integer, where
        /// any number above `Int.max` means `.unlimited` (Combine writes
        /// `Int.max + 1`). A negative number is an error.
        public init(from decoder: any Decoder) throws {
            let raw = try decoder.singleValueContainer().decode(UInt.self)
            self.init(rawValue: raw > UInt(Int.max) ? .max : raw)
        }

        /// Encodes the demand as a single unsigned integer: `n` for
        /// `.max(n)`, `Int.max + 1` for `.unlimited`, as Combine does.
        ///
        /// ```swift
        /// struct Wrapper: Codable { let value: Subscribers.Demand }
        /// try JSONEncoder().encode(Wrapper(value: .unlimited))
        /// // {"value":9223372036854775808}
        /// ```
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue == .max ? Self.encodedUnlimited : rawValue)
        }

        // MARK: Package helpers (the package's one copy of each)

        /// Whether this is `.unlimited`. Any thread.
        ///
        /// ```swift
        /// if !demand.isUnlimited { demand -= 1 }
        /// ```
        @inlinable @inline(__always)
        package var isUnlimited: Bool { rawValue == .max }

        /// Traps when the demand is `.none`: `request(.none)` is a contract
        /// violation in Combine. Any thread.
        ///
        /// ```swift
        /// func request(_ demand: Subscribers.Demand) { demand.assertNonZero(); ... }
        /// ```
        @inlinable @inline(__always)
        package func assertNonZero() {
            if rawValue == 0 { violation("Subscription.request(.none): demand must not be zero") }
        }
    }
}
