import Foundation
import Synchronization
import UVCombineCore

extension Timer {
    /// Returns a publisher that repeatedly emits the current date on the
    /// given interval, on `runLoop` in `mode`.
    ///
    /// The publisher is connectable: nothing fires until `connect()` (or
    /// `autoconnect()`), and the first value comes one interval after it.
    /// See `Timer.TimerPublisher` for the rules.
    ///
    /// ```swift
    /// var storage = Set<AnyCancellable>()
    /// Timer.publish(every: 1, on: .main, in: .default)
    ///     .autoconnect()
    ///     .sink { print($0) }
    ///     .store(in: &storage)
    /// ```
    public static func publish(every interval: TimeInterval, tolerance: TimeInterval? = nil,
                               on runLoop: RunLoop, in mode: RunLoop.Mode,
                               options: RunLoop.SchedulerOptions? = nil) -> TimerPublisher {
        TimerPublisher(interval: interval, tolerance: tolerance, runLoop: runLoop, mode: mode, options: options)
    }

    /// A connectable publisher that repeatedly emits the current date on a
    /// given interval, from a Foundation `Timer` on a run loop.
    ///
    /// Semantics, as Combine's (and as `UVTimer.TimerPublisher` on a loop):
    /// - Nothing fires before `connect()`. Each `connect()` adds its own
    ///   repeating `Timer` to the run loop in the publisher's mode, shared
    ///   by every subscriber, and returns the cancellable that invalidates
    ///   it; keep it. Cancelling it also detaches the current subscribers
    ///   (they receive nothing more, and no completion).
    /// - The first value comes one interval after `connect()`; later ones
    ///   keep the fixed schedule `connect + k * interval` (Foundation's
    ///   repeating timer does not drift) and firings the run loop was too
    ///   busy to make are skipped.
    /// - A subscriber with no outstanding demand misses the firing: values
    ///   are dropped, never queued.
    ///
    /// Values are `Date()` read once per firing (every subscriber gets the
    /// same one). Threading: subscribe, request, cancel and connect from any
    /// thread; values arrive on the run loop's thread while it runs in a
    /// matching mode (`RunLoop.current.run(until:)` drives it). Once a
    /// subscriber's `cancel()` has returned, no value reaches it. A firing
    /// allocates nothing beyond the `Date`.
    ///
    /// ```swift
    /// var timerCancellable = Set<AnyCancellable>()
    /// let timerPublisher = Timer.publish(every: 0.5, on: .main, in: .common)
    /// let timerPipeline = Subscribers.Sink<Date, Never>(receiveCompletion: { _ in }) { _ in
    ///     print("tick")
    /// }
    /// timerPublisher.subscribe(timerPipeline)
    /// timerPublisher.connect().store(in: &timerCancellable)
    /// ```
    public final class TimerPublisher: ConnectablePublisher, CustomStringConvertible {
        /// Dates of firings.
        public typealias Output = Date
        /// A timer never fails.
        public typealias Failure = Never

        /// The time between firings, in seconds.
        public let interval: TimeInterval
        /// The tolerance given to each connection's `Timer`.
        public let tolerance: TimeInterval?
        /// The run loop whose thread delivers the values.
        public let runLoop: RunLoop
        /// The run loop mode the timers are added in.
        public let mode: RunLoop.Mode
        /// The scheduler options given at creation (there are none).
        public let options: RunLoop.SchedulerOptions?

        /// The subscribers, their demand and the delivery gate: the timer
        /// fan-out this publisher shares with `UVTimer.TimerPublisher`.
        /// Releasing it with the publisher lets go of the subscribers still
        /// attached.
        @usableFromInline internal let fanOut = TimerFanOut<Date>()

        /// Creates a timer publisher; `connect()` starts it. Any thread.
        ///
        /// ```swift
        /// let timer = Timer.TimerPublisher(interval: 0.25, runLoop: .current, mode: .default)
        /// ```
        public init(interval: TimeInterval, tolerance: TimeInterval? = nil, runLoop: RunLoop,
                    mode: RunLoop.Mode, options: RunLoop.SchedulerOptions? = nil) {
            self.interval = interval
            self.tolerance = tolerance
            self.runLoop = runLoop
            self.mode = mode
            self.options = options
        }

        /// Attaches `subscriber`; it receives the firings of every current
        /// and later connection while it has demand.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Date, S.Failure == Never {
            fanOut.attach(subscriber)
        }

        /// Adds a repeating `Timer` that fires every `interval` from now
        /// to the run loop, and returns the cancellable that invalidates it
        /// and detaches the current subscribers. Any thread.
        ///
        /// ```swift
        /// let connection = timer.connect()
        /// connection.cancel()
        /// ```
        public func connect() -> any Cancellable {
            let connection = TimerPublisherConnection(publisher: self)
            // The timer holds the publisher (a connection keeps firing after
            // the caller drops the publisher) until it is invalidated.
            let timer = Timer(fire: Date() + interval, interval: interval, repeats: true) { [self] _ in
                fanOut.fire(Date())
            }
            if let tolerance { timer.tolerance = tolerance }
            connection.timer.withLock { $0 = timer }
            runLoop.add(timer, forMode: mode)
            return connection
        }

        /// `TimerPublisher`.
        public var description: String { "TimerPublisher" }
    }
}

// The properties are immutable; the subscribers live in the fan-out,
// behind its gate.
extension Timer.TimerPublisher: @unchecked Sendable {}

/// One `connect()` of a `Timer.TimerPublisher`: cancelling it invalidates
/// its `Timer` and detaches the publisher's current subscribers, once.
internal final class TimerPublisherConnection: Cancellable, Sendable {
    private let publisher: Timer.TimerPublisher
    internal let timer = Locked<Timer?>(nil)

    init(publisher: Timer.TimerPublisher) {
        self.publisher = publisher
    }

    func cancel() {
        guard let timer = timer.withLock({ $0.take() }) else { return }
        timer.invalidate()
        publisher.fanOut.disconnectAll()
    }
}
