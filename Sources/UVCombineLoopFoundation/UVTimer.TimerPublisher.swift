import FoundationEssentials
import UVCombineCore
import UVCombineLoop

extension UVTimer {
    /// A connectable publisher that repeatedly emits the current date on a
    /// given interval, driven by a `uv_timer_t` on a ``/UVCombineLoop/UVLoop``: Foundation's
    /// `Timer.TimerPublisher` with the loop in place of the run loop.
    ///
    /// Semantics, as Combine's:
    /// - Nothing fires before `connect()`. Each `connect()` starts one
    ///   `uv_timer` shared by every subscriber, and returns the cancellable
    ///   that stops and closes it; keep it. Cancelling it also detaches the
    ///   current subscribers (they receive nothing more, and no completion),
    ///   so a later `connect()` serves only later subscribers. Connecting
    ///   twice runs two timers.
    /// - The first value comes one interval after `connect()`; values come on
    ///   a fixed schedule (`connect + k * interval`) that does not drift,
    ///   never early, and firings a blocked loop missed are skipped, as
    ///   Foundation's `Timer` skips them.
    /// - A subscriber with no outstanding demand misses the firing: values
    ///   are dropped, never queued.
    ///
    /// Values: the `Date` of the firing, read once per firing (all
    /// subscribers get the same one), as Foundation's timer publisher sends
    /// `Date()`. For monotonic instants, read `loop.now` inside the
    /// subscriber, or use the scheduler-generic `UVSchedulerTimer.publish(every:on:)`,
    /// whose values are `UVLoop.SchedulerTimeType` (it runs on the loop's
    /// repeating `schedule`, with the same fixed schedule).
    ///
    /// Threading: subscribe, request, cancel and connect from any thread;
    /// values arrive on the loop's thread. Once a subscriber's `cancel()`
    /// (or the connection's) has returned, no value reaches it: a cancel
    /// from another thread waits for a firing being delivered. The price, as
    /// with Combine's own downstream lock: a subscriber must not block
    /// waiting for a thread that cancels on the same timer. Each firing
    /// allocates nothing.
    ///
    /// ```swift
    /// var timerCancellable = Set<AnyCancellable>()
    /// let timerPublisher = UVTimer.publish(every: 0.5, on: loop)
    /// let timerPipeline = Subscribers.Sink<Date, Never>(receiveCompletion: { _ in }) { _ in
    ///     checkFraction()
    /// }
    /// timerPublisher.subscribe(timerPipeline)
    /// timerPublisher.connect().store(in: &timerCancellable)
    /// // later: timerCancellable.removeAll() stops the timer
    /// ```
    public final class TimerPublisher: ConnectablePublisher, CustomStringConvertible, @unchecked Sendable {
        // @unchecked Sendable: the properties are immutable; the subscribers
        // live in the fan-out, behind its gate.

        /// Dates of firings.
        public typealias Output = Date
        /// A timer never fails.
        public typealias Failure = Never

        /// The time between firings.
        public let interval: UVLoop.SchedulerTimeType.Stride
        /// The tolerance given at creation (see
        /// ``UVTimer/publish(every:tolerance:on:)``).
        public let tolerance: UVLoop.SchedulerTimeType.Stride?
        /// The loop whose thread delivers the values.
        public let loop: UVLoop

        /// The subscribers, their demand and the delivery gate: the timer
        /// fan-out this publisher shares with Foundation's
        /// `Timer.TimerPublisher` (UVCombineCore). Releasing it with the
        /// publisher lets go of the subscribers still attached.
        @usableFromInline internal let fanOut = TimerFanOut<Date>()

        /// Creates a timer publisher; intervals under 100 µs count as
        /// 100 µs, as Foundation clamps them. Any thread.
        ///
        /// ```swift
        /// let timer = UVTimer.TimerPublisher(interval: .milliseconds(250), loop: loop)
        /// ```
        public init(interval: UVLoop.SchedulerTimeType.Stride, tolerance: UVLoop.SchedulerTimeType.Stride? = nil,
                    loop: UVLoop) {
            self.interval = interval
            self.tolerance = tolerance
            self.loop = loop
        }

        /// Attaches `subscriber`; it receives the firings of every current
        /// and later connection while it has demand.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Date, S.Failure == Never {
            fanOut.attach(subscriber)
        }

        /// Starts a `uv_timer` that fires every ``interval`` from now, and
        /// returns the cancellable that stops and closes it (and detaches
        /// the current subscribers). Any thread; on a closed loop the timer
        /// never starts.
        ///
        /// ```swift
        /// let connection = timer.connect()
        /// connection.cancel()
        /// ```
        public func connect() -> any Cancellable {
            // The closures hold the publisher for as long as the connection
            // runs, so it keeps firing after the caller drops the publisher.
            loop.connectTimer(every: interval, fire: { [self] in fanOut.fire(Date()) },
                              detach: { [self] in fanOut.disconnectAll() })
        }

        /// `TimerPublisher`.
        public var description: String { "TimerPublisher" }
    }
}
