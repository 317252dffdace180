import Foundation
import UVCombineCore

// Foundation's RunLoop as a Scheduler, with the time types Combine declares
// on it, so `.receive(on: RunLoop.main)` and
// `.debounce(for: 0.3, scheduler: RunLoop.main)` read as in Combine.
// `RunLoop.current.run(until:)` (or `run(mode:before:)`) drives it.

extension RunLoop: Scheduler {
    /// The scheduler time type used by the run loop: a `Date`.
    ///
    /// ```swift
    /// let soon = RunLoop.main.now.advanced(by: .milliseconds(250))
    /// ```
    public struct SchedulerTimeType: _DateSchedulerTime, Strideable, Codable, Hashable, Sendable {
        // distance(to:) and advanced(by:) come from _DateSchedulerTime
        // (DateSchedulerTime.swift), shared with the other Date-based time
        // type.

        /// The date represented by this type.
        public var date: Date

        /// Initializes a run loop scheduler time with the given date.
        ///
        /// ```swift
        /// let t = RunLoop.SchedulerTimeType(Date())
        /// ```
        @inlinable
        public init(_ date: Date) {
            self.date = date
        }

        /// The interval by which run loop times advance: a `TimeInterval`
        /// in seconds. Integer and float literals are seconds; the
        /// arithmetic and the `.seconds(_:)`, `.milliseconds(_:)`, ...
        /// constructors come from `_SecondsSchedulerStride`.
        ///
        /// ```swift
        /// let stride: RunLoop.SchedulerTimeType.Stride = .milliseconds(1500)
        /// print(stride.timeInterval) // Prints: "1.5"
        /// ```
        public struct Stride: _SecondsSchedulerStride, ExpressibleByFloatLiteral, Comparable, SignedNumeric, Codable,
            Hashable, Sendable, SchedulerTimeIntervalConvertible
        {
            /// Float literals are seconds.
            public typealias FloatLiteralType = TimeInterval
            /// Integer literals are seconds.
            public typealias IntegerLiteralType = TimeInterval
            /// The magnitude is a number of seconds.
            public typealias Magnitude = TimeInterval

            /// The value of this time interval in seconds.
            public var magnitude: TimeInterval

            /// A stride of `timeInterval` seconds.
            ///
            /// ```swift
            /// let s = RunLoop.SchedulerTimeType.Stride(0.5)
            /// ```
            @inlinable
            public init(_ timeInterval: TimeInterval) { magnitude = timeInterval }
        }
    }

    /// Options that affect the operation of the run loop scheduler (none).
    ///
    /// ```swift
    /// runLoop.schedule(options: nil) { print("ran") }
    /// ```
    public struct SchedulerOptions: Sendable {}

    /// The current date.
    public var now: SchedulerTimeType { SchedulerTimeType(Date()) }

    /// Zero: the run loop applies whatever tolerance it is given.
    public var minimumTolerance: SchedulerTimeType.Stride { 0 }

    /// Performs `action` on the run loop's thread at its next pass, in the
    /// common modes, in the order scheduled. Any thread; a run loop
    /// sleeping in `run(until:)` is woken.
    ///
    /// ```swift
    /// RunLoop.main.schedule { print("on the main run loop") }
    /// ```
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let box = UncheckedSendable(action)
        perform { box.value() }
        wakeUp()
    }

    /// Performs `action` once, at `date` or later, from a one-shot
    /// `Timer` in the default mode (as Combine does). Any thread.
    ///
    /// ```swift
    /// RunLoop.main.schedule(after: RunLoop.main.now.advanced(by: 0.5)) { print("later") }
    /// ```
    public func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride,
                         options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let box = UncheckedSendable(action)
        let timer = Timer(fire: date.date, interval: 0, repeats: false) { _ in box.value() }
        timer.tolerance = tolerance.timeInterval
        add(timer, forMode: .default)
    }

    /// Performs `action` at `date` and then every `interval`, from a
    /// repeating `Timer` in the default mode, until the returned
    /// cancellable is cancelled. The timer keeps a fixed schedule
    /// (`date + k * interval`) and skips firings the run loop was too busy
    /// to make. Any thread.
    ///
    /// ```swift
    /// let ticks = RunLoop.main.schedule(after: RunLoop.main.now, interval: 1) { print("tick") }
    /// ticks.cancel()
    /// ```
    public func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
                         tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
                         _ action: @escaping () -> Void) -> any Cancellable {
        let box = UncheckedSendable(action)
        let timer = Timer(fire: date.date, interval: interval.timeInterval, repeats: true) { _ in box.value() }
        timer.tolerance = tolerance.timeInterval
        add(timer, forMode: .default)
        let handle = UncheckedSendable(timer)
        return AnyCancellable { handle.value.invalidate() }
    }

    /// Wakes the run loop if another thread is calling: on Linux,
    /// Foundation's `perform` queues the block without waking a run loop
    /// that sleeps in `run(until:)`, and `getCFRunLoop()` is not public. A
    /// timer added from another thread re-arms the loop's timer and so
    /// wakes it; this one fires at once and does nothing.
    internal func wakeUp() {
        guard RunLoop.current !== self else { return }
        add(Timer(fire: .distantPast, interval: 0, repeats: false) { _ in }, forMode: .common)
    }
}
