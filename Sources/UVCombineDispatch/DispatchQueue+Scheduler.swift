import Dispatch
import UVCombineCore

// DispatchQueue as a Scheduler, with the time types Combine declares on it,
// so `.receive(on: DispatchQueue.global())` and
// `.debounce(for: .milliseconds(300), scheduler: queue)` read as in Combine.

extension DispatchQueue: Scheduler {
    /// Scheduler time type for dispatch queues: a `DispatchTime` on the
    /// uptime clock, with strides in nanoseconds.
    ///
    /// ```swift
    /// let deadline = DispatchQueue.main.now.advanced(by: .milliseconds(250))
    /// ```
    public struct SchedulerTimeType: Strideable, Codable, Hashable, Sendable {
        /// The dispatch time represented by this type.
        public var dispatchTime: DispatchTime

        /// Creates a dispatch queue time type instance.
        ///
        /// ```swift
        /// let t = DispatchQueue.SchedulerTimeType(.now())
        /// ```
        @inlinable
        public init(_ time: DispatchTime) {
            dispatchTime = time
        }

        /// The distance to `other`, in nanoseconds, computed exactly as
        /// Combine does (through `DispatchTime`'s distance): a difference
        /// that fits in an `Int` is returned as is, in either direction, even
        /// between instants beyond `Int.max` nanoseconds; one that does not
        /// fit (such as any distance to or from `.distantFuture`) is
        /// `.nanoseconds(.max)`, whatever its sign.
        ///
        /// ```swift
        /// let a = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 10_000))
        /// let b = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: UInt64(Int.max)))
        /// a.distance(to: b) // .nanoseconds(.max - 10_000)
        /// ```
        @inlinable
        public func distance(to other: DispatchQueue.SchedulerTimeType) -> Stride {
            let start = dispatchTime.uptimeNanoseconds
            let end = other.dispatchTime.uptimeNanoseconds
            let limit = UInt64(Int.max)
            if end >= start {
                let forward = end &- start
                return forward > limit ? .nanoseconds(.max) : .nanoseconds(Int(forward))
            }
            let backward = start &- end
            return backward > limit ? .nanoseconds(.max) : .nanoseconds(-Int(backward))
        }

        /// The instant `n` later (or earlier, for a negative stride),
        /// clamped to the representable range; `.nanoseconds(.max)` gives
        /// `.distantFuture`.
        @inlinable
        public func advanced(by n: Stride) -> DispatchQueue.SchedulerTimeType {
            if n.magnitude == .max { return .init(.distantFuture) }
            let start = dispatchTime.uptimeNanoseconds
            let result: UInt64
            if n.magnitude >= 0 {
                let (sum, overflow) = start.addingReportingOverflow(UInt64(n.magnitude))
                result = overflow ? .max : sum
            } else {
                let down = UInt64(n.magnitude.magnitude)
                result = start > down ? start - down : 1
            }
            return .init(result >= DispatchTime.distantFuture.uptimeNanoseconds
                ? .distantFuture : DispatchTime(uptimeNanoseconds: Swift.max(result, 1)))
        }

        /// Hashes the raw dispatch time.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(dispatchTime.rawValue)
        }

        /// Two times are equal when their dispatch times are.
        @inlinable
        public static func == (lhs: DispatchQueue.SchedulerTimeType, rhs: DispatchQueue.SchedulerTimeType) -> Bool {
            lhs.dispatchTime == rhs.dispatchTime
        }

        /// Orders by the uptime clock.
        @inlinable
        public static func < (lhs: DispatchQueue.SchedulerTimeType, rhs: DispatchQueue.SchedulerTimeType) -> Bool {
            lhs.dispatchTime.uptimeNanoseconds < rhs.dispatchTime.uptimeNanoseconds
        }

        /// Encodes the uptime in nanoseconds as a single value, as Combine does.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(dispatchTime.uptimeNanoseconds)
        }

        /// Decodes a single uptime in nanoseconds.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            dispatchTime = DispatchTime(uptimeNanoseconds: try container.decode(UInt64.self))
        }

        /// A distance between dispatch times, in nanoseconds.
        ///
        /// Integer and float literals mean seconds (`let s: Stride = 1.5`
        /// is 1.5 s). The time-unit constructors clamp to the range of
        /// `Int` nanoseconds instead of overflowing. Multiplying two
        /// strides multiplies them as seconds and rounds toward zero to
        /// whole nanoseconds, so `interval * 3` is three intervals and the
        /// product of two sub-second strides is tiny (as in Combine, where
        /// `.nanoseconds(18) * .microseconds(1)` is zero).
        ///
        /// ```swift
        /// let stride: DispatchQueue.SchedulerTimeType.Stride = .milliseconds(1500)
        /// print(stride.magnitude)           // Prints: "1500000000"
        /// print((stride * 2).timeInterval)  // Prints: "nanoseconds(3000000000)"
        /// ```
        public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric,
            ExpressibleByFloatLiteral, Hashable, Codable, Sendable
        {
            /// Float literals are seconds.
            public typealias FloatLiteralType = Double
            /// Integer literals are seconds.
            public typealias IntegerLiteralType = Int
            /// The magnitude is a number of nanoseconds.
            public typealias Magnitude = Int

            // Named as in Combine, whose Codable form is {"_nanoseconds": n}.
            @usableFromInline internal var _nanoseconds: Int64

            /// The value of this time interval in nanoseconds.
            @inlinable
            public var magnitude: Int {
                get { Int(_nanoseconds) }
                set { _nanoseconds = Int64(newValue) }
            }

            /// This interval as a `DispatchTimeInterval` (always `.nanoseconds`).
            @inlinable
            public var timeInterval: DispatchTimeInterval { .nanoseconds(magnitude) }

            @inlinable
            internal init(nanoseconds: Int64) {
                _nanoseconds = nanoseconds
            }

            /// Creates a stride from a `DispatchTimeInterval`; `.never` is
            /// `.nanoseconds(.max)`.
            ///
            /// ```swift
            /// let s = DispatchQueue.SchedulerTimeType.Stride(.milliseconds(5))
            /// ```
            @inlinable
            public init(_ timeInterval: DispatchTimeInterval) {
                switch timeInterval {
                case .seconds(let s): self = .seconds(s)
                case .milliseconds(let ms): self = .milliseconds(ms)
                case .microseconds(let us): self = .microseconds(us)
                case .nanoseconds(let ns): self = .nanoseconds(ns)
                case .never: self = .nanoseconds(.max)
                @unknown default: self = .nanoseconds(.max)
                }
            }

            /// Creates a stride of `value` seconds.
            @inlinable
            public init(floatLiteral value: Double) { self = .seconds(value) }

            /// Creates a stride of `value` seconds.
            @inlinable
            public init(integerLiteral value: Int) { self = .seconds(value) }

            /// Creates a stride of `source` seconds when it fits in an `Int`.
            @inlinable
            public init?<T: BinaryInteger>(exactly source: T) {
                guard let value = Int(exactly: source) else { return nil }
                self = .seconds(value)
            }

            /// Orders strides by length.
            @inlinable public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs._nanoseconds < rhs._nanoseconds }

            /// The product of two strides taken as seconds, in whole nanoseconds.
            @inlinable
            public static func * (lhs: Stride, rhs: Stride) -> Stride {
                let negative = (lhs._nanoseconds < 0) != (rhs._nanoseconds < 0)
                let product = lhs._nanoseconds.magnitude.multipliedFullWidth(by: rhs._nanoseconds.magnitude)
                let nanosecondsPerSecond: UInt64 = 1_000_000_000
                // |lhs * rhs| / 1e9 without overflow; clamp what does not fit.
                guard product.high < nanosecondsPerSecond else {
                    return Stride(nanoseconds: negative ? .min : .max)
                }
                let quotient = nanosecondsPerSecond.dividingFullWidth(product).quotient
                guard quotient <= UInt64(Int64.max) else { return Stride(nanoseconds: negative ? .min : .max) }
                return Stride(nanoseconds: negative ? -Int64(quotient) : Int64(quotient))
            }

            /// The sum of two strides.
            @inlinable public static func + (lhs: Stride, rhs: Stride) -> Stride {
                Stride(nanoseconds: lhs._nanoseconds + rhs._nanoseconds)
            }
            /// The difference of two strides.
            @inlinable public static func - (lhs: Stride, rhs: Stride) -> Stride {
                Stride(nanoseconds: lhs._nanoseconds - rhs._nanoseconds)
            }
            /// Subtracts `rhs` from `lhs`.
            @inlinable public static func -= (lhs: inout Stride, rhs: Stride) { lhs = lhs - rhs }
            /// Multiplies `lhs` by `rhs`.
            @inlinable public static func *= (lhs: inout Stride, rhs: Stride) { lhs = lhs * rhs }
            /// Adds `rhs` to `lhs`.
            @inlinable public static func += (lhs: inout Stride, rhs: Stride) { lhs = lhs + rhs }

            /// `s` seconds, clamped to the range of `Int64` nanoseconds.
            @inlinable
            public static func seconds(_ s: Double) -> Stride {
                let ns = s * 1_000_000_000
                if ns >= Double(Int64.max) { return Stride(nanoseconds: .max) }
                if ns <= Double(Int64.min) { return Stride(nanoseconds: .min) }
                return Stride(nanoseconds: Int64(ns))
            }

            /// `s` seconds, clamped to the range of `Int64` nanoseconds.
            @inlinable
            public static func seconds(_ s: Int) -> Stride { clamped(s, 1_000_000_000) }
            /// `ms` milliseconds, clamped to the range of `Int64` nanoseconds.
            @inlinable
            public static func milliseconds(_ ms: Int) -> Stride { clamped(ms, 1_000_000) }
            /// `us` microseconds, clamped to the range of `Int64` nanoseconds.
            @inlinable
            public static func microseconds(_ us: Int) -> Stride { clamped(us, 1_000) }
            /// `ns` nanoseconds.
            @inlinable
            public static func nanoseconds(_ ns: Int) -> Stride { Stride(nanoseconds: Int64(ns)) }

            @inlinable
            internal static func clamped(_ value: Int, _ unit: Int64) -> Stride {
                let (product, overflow) = Int64(value).multipliedReportingOverflow(by: unit)
                if overflow { return Stride(nanoseconds: value > 0 ? .max : .min) }
                return Stride(nanoseconds: product)
            }
        }
    }

    /// Options that affect the operation of the dispatch queue scheduler.
    ///
    /// ```swift
    /// let group = DispatchGroup()
    /// publisher.receive(on: queue, options: .init(qos: .userInitiated, group: group))
    /// ```
    public struct SchedulerOptions {
        /// The dispatch queue quality of service.
        public var qos: DispatchQoS
        /// The dispatch queue work item flags.
        public var flags: DispatchWorkItemFlags
        /// The dispatch group, if any, that should be used for performing actions.
        public var group: DispatchGroup?

        /// Creates dispatch queue scheduler options.
        public init(qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], group: DispatchGroup? = nil) {
            self.qos = qos
            self.flags = flags
            self.group = group
        }
    }

    /// Zero: dispatch decides the leeway of one-shot actions itself.
    public var minimumTolerance: SchedulerTimeType.Stride { .nanoseconds(0) }

    /// The current uptime as a ``SchedulerTimeType``.
    public var now: SchedulerTimeType { SchedulerTimeType(.now()) }

    /// Runs `action` asynchronously on this queue (`async`), honouring the
    /// options' quality of service, flags and group.
    ///
    /// Threading: on a serial queue, actions run one at a time in the
    /// order scheduled; on a concurrent queue they may run in parallel.
    ///
    /// ```swift
    /// DispatchQueue.global().schedule(options: nil) { print("on a global queue") }
    /// ```
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let options = options ?? SchedulerOptions()
        let work = ActionBox(action)
        async(group: options.group, qos: options.qos, flags: options.flags) { work.run() }
    }

    /// Runs `action` on this queue at `date` or later (`asyncAfter`).
    ///
    /// ```swift
    /// let queue = DispatchQueue(label: "work")
    /// queue.schedule(after: queue.now.advanced(by: .milliseconds(100)), tolerance: .zero, options: nil) {
    ///     print("100 ms later")
    /// }
    /// ```
    public func schedule(after date: SchedulerTimeType,
                         tolerance: SchedulerTimeType.Stride,
                         options: SchedulerOptions?,
                         _ action: @escaping () -> Void) {
        let options = options ?? SchedulerOptions()
        let work = ActionBox(action)
        asyncAfter(deadline: date.dispatchTime, qos: options.qos, flags: options.flags) { work.run() }
    }

    /// Runs `action` on this queue from `date` every `interval`, on a
    /// dispatch timer source with `tolerance` as leeway. The returned
    /// ``/UVCombineCore/AnyCancellable`` cancels the source when cancelled or
    /// deinitialised.
    ///
    /// ```swift
    /// let queue = DispatchQueue(label: "ticks")
    /// let ticking = queue.schedule(after: queue.now, interval: .seconds(1), tolerance: .zero, options: nil) {
    ///     print("tick")
    /// }
    /// // later: ticking.cancel()
    /// ```
    public func schedule(after date: SchedulerTimeType,
                         interval: SchedulerTimeType.Stride,
                         tolerance: SchedulerTimeType.Stride,
                         options: SchedulerOptions?,
                         _ action: @escaping () -> Void) -> any Cancellable {
        let options = options ?? SchedulerOptions()
        let work = ActionBox(action)
        let timer = DispatchSource.makeTimerSource(queue: self)
        timer.setEventHandler(qos: options.qos, flags: options.flags) { work.run() }
        timer.schedule(deadline: date.dispatchTime, repeating: interval.timeInterval, leeway: tolerance.timeInterval)
        timer.resume()
        return AnyCancellable(DispatchTimerCancellable(timer))
    }
}

/// The one place where a scheduler action crosses into dispatch.
///
/// Dispatch takes `@Sendable` blocks; Combine's `schedule` takes plain
/// closures. Sending the action is safe because the scheduler contract
/// hands it over: the caller gives up the closure, and dispatch runs it
/// exactly once (or once per tick for a timer, never concurrently with
/// itself) on the queue. Captured state that the action shares with other
/// threads is the caller's to protect, as with any scheduler.
@usableFromInline
internal final class ActionBox: @unchecked Sendable {
    @usableFromInline let action: () -> Void

    @usableFromInline
    init(_ action: @escaping () -> Void) {
        self.action = action
    }

    @usableFromInline
    func run() { action() }
}

/// Cancels a dispatch timer source; cancelling twice is harmless.
internal final class DispatchTimerCancellable: Cancellable, @unchecked Sendable {
    // @unchecked Sendable: DispatchSourceTimer is thread-safe.
    private let timer: any DispatchSourceTimer

    init(_ timer: any DispatchSourceTimer) {
        self.timer = timer
    }

    func cancel() {
        timer.cancel()
    }
}
