import Synchronization

extension Scheduler {
    /// Returns a publisher that repeatedly emits this scheduler's current
    /// time on the given interval.
    ///
    /// The scheduler-generic counterpart of Combine's
    /// `Timer.publish(every:on:in:)`: it works with any scheduler, so tests
    /// can drive it on a `TestScheduler`.
    ///
    /// ```swift
    /// let timer = loop.timerPublisher(every: .seconds(1))
    /// let c = timer.sink { print("tick at \($0)") }
    /// let connection = timer.connect()
    /// ```
    @inlinable
    public func timerPublisher(every interval: SchedulerTimeType.Stride,
                               tolerance: SchedulerTimeType.Stride? = nil,
                               options: SchedulerOptions? = nil) -> Publishers.Timer<Self> {
        Publishers.Timer(every: interval, tolerance: tolerance, scheduler: self, options: options)
    }
}

extension Publishers {
    /// A connectable publisher that repeatedly emits the scheduler's current
    /// time on a given interval, over any ``Scheduler``.
    ///
    /// Semantics follow Combine's `Timer.TimerPublisher`:
    /// - Nothing happens until ``connect()``; the first value comes one
    ///   `interval` after it, then one every `interval` on a fixed schedule
    ///   (the scheduler's repeating action).
    /// - Subscribers share the one timer. A tick reaches each subscriber
    ///   that has outstanding demand; for the others it is dropped, not
    ///   queued.
    /// - ``connect()`` returns the cancellable that stops the timer; keep
    ///   it. While connected, the scheduler holds the timer (as a run loop
    ///   holds a Foundation timer). Connecting again while connected returns
    ///   the same connection; after a cancel, `connect()` starts afresh.
    /// - The timer never completes; subscribers stay attached across
    ///   connections and leave by cancelling.
    ///
    /// Threading: values arrive on the scheduler (a `UVLoop` timer ticks on
    /// its loop thread). `connect`, `cancel` and subscribing may happen on
    /// any thread. Each tick allocates nothing.
    ///
    /// ```swift
    /// let scheduler = DispatchQueue.test
    /// let timer = Publishers.Timer(every: .seconds(1), scheduler: scheduler)
    /// let c = timer.sink { print(scheduler.now) }
    /// let connection = timer.connect()
    /// scheduler.advance(by: .seconds(3)) // three ticks
    /// connection.cancel()
    /// ```
    public final class Timer<Context: Scheduler>: Publisher, ConduitParent, CustomStringConvertible {
        /// The scheduler's time at each tick.
        public typealias Output = Context.SchedulerTimeType
        /// A timer never fails.
        public typealias Failure = Never

        /// The time between ticks.
        public let interval: Context.SchedulerTimeType.Stride
        /// The tolerance passed to the scheduler; `nil` uses its minimum.
        public let tolerance: Context.SchedulerTimeType.Stride?
        /// The scheduler that runs the timer.
        public let scheduler: Context
        /// Options passed to the scheduler.
        public let options: Context.SchedulerOptions?

        @usableFromInline
        internal struct State {
            @usableFromInline var connection: Connection?
            @usableFromInline var repeating: (any Cancellable)?
        }

        /// The connection and its scheduled action.
        @usableFromInline internal let state = Mutex(UncheckedSendable(State()))
        /// The subscribers and their demand: the subjects' engine, so a tick
        /// is delivered exactly as `PassthroughSubject.send` delivers (one
        /// lock per tick, none per subscriber, drop without demand).
        @usableFromInline internal let engine = SubjectEngine<Output, Never>(latest: nil)

        /// Creates a timer publisher.
        ///
        /// ```swift
        /// let timer = Publishers.Timer(every: .milliseconds(100), scheduler: DispatchQueue.main)
        /// ```
        public init(every interval: Context.SchedulerTimeType.Stride,
                    tolerance: Context.SchedulerTimeType.Stride? = nil,
                    scheduler: Context,
                    options: Context.SchedulerOptions? = nil) {
            self.interval = interval
            self.tolerance = tolerance
            self.scheduler = scheduler
            self.options = options
        }

        deinit {
            state.withLock { UncheckedSendable($0.value.repeating) }.value?.cancel()
        }

        /// Attaches `subscriber`; it receives ticks while it has demand.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
            let conduit = SubjectConduit(parent: self, downstream: subscriber, name: "Timer")
            // A timer never completes, so attaching always succeeds.
            _ = engine.attach(conduit, replaysLatest: false)
            subscriber.receive(subscription: conduit)
        }

        /// Starts the timer, unless it is running; returns the cancellable
        /// that stops it.
        ///
        /// ```swift
        /// let connection = timer.connect()
        /// connection.cancel() // stops the ticks
        /// ```
        public func connect() -> any Cancellable {
            let (connection, isNew) = state.withLock { s -> (Connection, Bool) in
                if let existing = s.value.connection { return (existing, false) }
                let connection = Connection(timer: self)
                s.value.connection = connection
                return (connection, true)
            }
            guard isNew else { return connection }
            let start = scheduler.now.advanced(by: interval)
            let repeating = scheduler.schedule(after: start, interval: interval,
                                               tolerance: tolerance ?? scheduler.minimumTolerance,
                                               options: options) { self.fire() }
            let stale = state.withLock { s -> UncheckedSendable<(any Cancellable)?> in
                guard s.value.connection === connection else { return UncheckedSendable(repeating) }
                s.value.repeating = repeating
                return UncheckedSendable(nil)
            }
            stale.value?.cancel()
            return connection
        }

        @usableFromInline
        internal func fire() {
            let now = scheduler.now
            guard state.withLock({ $0.value.connection != nil }) else { return }
            engine.send(now, replaysLatest: false)
        }

        @usableFromInline
        internal func disconnect(_ connection: Connection) {
            let repeating = state.withLock { s -> UncheckedSendable<(any Cancellable)?> in
                guard s.value.connection === connection else { return UncheckedSendable(nil) }
                s.value.connection = nil
                let repeating = s.value.repeating
                s.value.repeating = nil
                return UncheckedSendable(repeating)
            }
            repeating.value?.cancel()
        }

        @inlinable
        internal func conduitRequested(_ conduit: ConduitBase<Output, Never>, _ demand: Subscribers.Demand) {
            engine.request(demand, for: conduit)
        }

        @inlinable
        internal func conduitCancelled(_ conduit: ConduitBase<Output, Never>) {
            engine.cancel(conduit)
        }

        /// `Timer`.
        public var description: String { "Timer" }

        /// The cancellable returned by ``Timer/connect()``.
        @usableFromInline
        internal final class Connection: Cancellable, CustomStringConvertible, @unchecked Sendable {
            // @unchecked Sendable: the only state is the weak reference,
            // read once per cancel; the timer is thread-safe.
            weak var timer: Timer?

            init(timer: Timer) {
                self.timer = timer
            }

            @usableFromInline
            func cancel() {
                timer?.disconnect(self)
            }

            @usableFromInline var description: String { "Timer.Connection" }
        }
    }
}

// Every piece of mutable state is behind the mutex or the engine's gate.
extension Publishers.Timer: @unchecked Sendable where Context: Sendable {}

extension Publishers.Timer: ConnectablePublisher {}
