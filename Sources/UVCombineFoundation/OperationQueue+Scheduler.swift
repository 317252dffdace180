import Dispatch
import Foundation
import Synchronization
import UVCombineCore

// OperationQueue as a Scheduler, with the time types Combine declares on it:
// `.receive(on: queue)` runs the downstream calls as operations on `queue`.

extension OperationQueue: Scheduler {
    /// The operation queue scheduler's instants: a `Date`, as Combine declares it.
    ///
    /// ```swift
    /// let later = queue.now.advanced(by: .seconds(1))
    /// ```
    public struct SchedulerTimeType: _DateSchedulerTime, Strideable, Codable, Hashable, Sendable {
        // distance(to:) and advanced(by:) come from _DateSchedulerTime
        // (DateSchedulerTime.swift), shared with the other Date-based time
        // type.

        /// The date represented by this type.
        public var date: Date

        /// Initializes a operation queue scheduler time with the given date.
        ///
        /// ```swift
        /// let t = OperationQueue.SchedulerTimeType(Date())
        /// ```
        @inlinable
        public init(_ date: Date) {
            self.date = date
        }

        /// The interval by which operation queue times advance: a `TimeInterval`
        /// in seconds. Integer and float literals are seconds; the
        /// arithmetic and the `.seconds(_:)`, `.milliseconds(_:)`, ...
        /// constructors come from `_SecondsSchedulerStride`.
        ///
        /// ```swift
        /// let stride: OperationQueue.SchedulerTimeType.Stride = .milliseconds(1500)
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
            /// let s = OperationQueue.SchedulerTimeType.Stride(0.5)
            /// ```
            @inlinable
            public init(_ timeInterval: TimeInterval) { magnitude = timeInterval }
        }
    }

    /// Options that affect the operation of the operation queue scheduler (none).
    ///
    /// ```swift
    /// queue.schedule(options: nil) { print("ran") }
    /// ```
    public struct SchedulerOptions: Sendable {}

    /// The current date.
    public var now: SchedulerTimeType { SchedulerTimeType(Date()) }

    /// Zero.
    public var minimumTolerance: SchedulerTimeType.Stride { 0 }

    /// Adds `action` to the queue as an operation. Any thread.
    ///
    /// ```swift
    /// let queue = OperationQueue()
    /// queue.schedule { print("on the queue") }
    /// ```
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let box = UncheckedSendable(action)
        addOperation { box.value() }
    }

    /// Adds `action` to the queue as an operation at `date` (measured on
    /// the monotonic clock from now), never before. Any thread.
    ///
    /// ```swift
    /// queue.schedule(after: queue.now.advanced(by: 0.5)) { print("later") }
    /// ```
    public func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride,
                         options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let box = UncheckedSendable((queue: self, action: action))
        DispatchQueue.global().asyncAfter(deadline: Self.deadline(date)) {
            box.value.queue.schedule(options: nil, box.value.action)
        }
    }

    /// Adds `action` to the queue as an operation at `date` and then every
    /// `interval` on a fixed schedule (a dispatch timer), until the
    /// returned cancellable is cancelled; an operation already queued when
    /// it is cancelled does not run the action. Any thread.
    ///
    /// ```swift
    /// let ticks = queue.schedule(after: queue.now, interval: 1) { print("tick") }
    /// ticks.cancel()
    /// ```
    public func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
                         tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
                         _ action: @escaping () -> Void) -> any Cancellable {
        let repeating = OperationQueueRepeatingAction(queue: self, action: action)
        repeating.start(deadline: Self.deadline(date), interval: interval.timeInterval,
                        leeway: tolerance.timeInterval)
        return AnyCancellable(repeating)
    }

    /// The dispatch deadline of a wall-clock date, measured from now.
    internal static func deadline(_ date: SchedulerTimeType) -> DispatchTime {
        let delay = date.date.timeIntervalSinceNow
        guard delay > 0 else { return .now() }
        return .now() + min(delay, TimeInterval(Int32.max))
    }
}

/// A repeating `schedule` on an operation queue: a dispatch timer that adds
/// one operation per firing. Cancel stops the timer and makes operations
/// already queued skip the action.
internal final class OperationQueueRepeatingAction: Cancellable, @unchecked Sendable {
    // @unchecked Sendable: `action` and `queue` are immutable and only called
    // on the queue (Combine's contract for a scheduled action); `source` is
    // set once before the timer starts; `cancelled` is atomic.
    private let queue: OperationQueue
    private let action: () -> Void
    private let cancelled = Atomic<Bool>(false)
    private let source = DispatchSource.makeTimerSource(queue: DispatchQueue.global())

    init(queue: OperationQueue, action: @escaping () -> Void) {
        self.queue = queue
        self.action = action
    }

    func start(deadline: DispatchTime, interval: TimeInterval, leeway: TimeInterval) {
        let nanoseconds = Int(min(max(interval, 0), TimeInterval(Int32.max)) * 1e9)
        source.schedule(deadline: deadline, repeating: .nanoseconds(max(nanoseconds, 1)),
                        leeway: .nanoseconds(Int(min(max(leeway, 0), 1e9) * 1e9)))
        source.setEventHandler { [weak self] in self?.fire() }
        source.resume()
    }

    private func fire() {
        guard !cancelled.load(ordering: .acquiring) else { return }
        queue.addOperation { [self] in
            guard !cancelled.load(ordering: .acquiring) else { return }
            action()
        }
    }

    func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        source.cancel()
    }

    deinit { cancel() }
}
