import Foundation
import Synchronization

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

        /// The attached subscriptions.
        @usableFromInline internal let subscriptions = Mutex(UncheckedSendable(ContiguousArray<RunLoopTimerSubscriptionBase>()))
        /// Held across each firing's deliveries, so that a cancel from
        /// another thread waits for the value in flight.
        @usableFromInline internal let gate = Mutex(())
        /// The thread holding `gate`, or 0: calls from inside a delivery
        /// (a subscriber cancelling itself) must not take it again.
        @usableFromInline internal let gateOwner = Atomic<UInt>(0)

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

        deinit {
            // Subscribers left attached let go of their downstreams.
            disconnectAll()
        }

        /// Attaches `subscriber`; it receives the firings of every current
        /// and later connection while it has demand.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Date, S.Failure == Never {
            let subscription = RunLoopTimerSubscription(publisher: self, downstream: subscriber)
            subscriptions.withLock { $0.value.append(subscription) }
            subscriber.receive(subscription: subscription)
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
                fire(Date())
            }
            if let tolerance { timer.tolerance = tolerance }
            connection.timer.withLock { $0 = UncheckedSendable(timer) }
            runLoop.add(timer, forMode: mode)
            return connection
        }

        /// Offers one firing to every subscriber, holding the gate;
        /// subscribers that attach meanwhile see only later firings. Run
        /// loop thread.
        internal func fire(_ date: Date) {
            withGate {
                // Copying the array out retains its buffer; no allocation.
                let current = subscriptions.withLock { UncheckedSendable($0.value) }
                for subscription in current.value { subscription.offer(date) }
            }
        }

        /// Runs `body` holding the delivery gate; re-entrant for the thread
        /// that holds it. Any thread.
        @usableFromInline
        internal func withGate(_ body: () -> Void) {
            let me = currentThreadIdentity()
            if gateOwner.load(ordering: .relaxed) == me {
                body()
                return
            }
            gate.withLock { _ in
                gateOwner.store(me, ordering: .relaxed)
                body()
                gateOwner.store(0, ordering: .relaxed)
            }
        }

        @usableFromInline
        internal func detach(_ subscription: RunLoopTimerSubscriptionBase) {
            subscriptions.withLock { state in
                if let index = state.value.firstIndex(where: { $0 === subscription }) {
                    state.value.remove(at: index)
                }
            }
        }

        /// Detaches every current subscriber (no completion), after the
        /// firing in flight; each lets go of its subscriber, so nothing
        /// stays in a cycle. Any thread.
        internal func disconnectAll() {
            var taken = UncheckedSendable(ContiguousArray<RunLoopTimerSubscriptionBase>())
            withGate {
                taken = subscriptions.withLock { state in
                    defer { state.value = [] }
                    return UncheckedSendable(state.value)
                }
                for subscription in taken.value { subscription.disconnect() }
            }
            _ = taken // released here, outside the gate
        }

        /// `TimerPublisher`.
        public var description: String { "TimerPublisher" }
    }
}

// The only mutable state is the subscription list inside its mutex.
extension Timer.TimerPublisher: @unchecked Sendable {}

/// One `connect()` of a `Timer.TimerPublisher`: cancelling it invalidates
/// its `Timer` and detaches the publisher's current subscribers, once.
internal final class TimerPublisherConnection: Cancellable, Sendable {
    private let publisher: Timer.TimerPublisher
    internal let timer = Mutex<UncheckedSendable<Timer?>>(UncheckedSendable(nil))

    init(publisher: Timer.TimerPublisher) {
        self.publisher = publisher
    }

    func cancel() {
        let taken = timer.withLock { state -> UncheckedSendable<Timer?> in
            defer { state = UncheckedSendable(nil) }
            return state
        }
        guard let timer = taken.value else { return }
        timer.invalidate()
        publisher.disconnectAll()
    }
}

/// One subscriber's link to a `Timer.TimerPublisher`, non-generic over the
/// subscriber so that the publisher holds different subscribers in one
/// list. `deliver` is a stored non-capturing closure formed in the
/// subclass's `@inlinable` initialiser: a firing runs code specialised for
/// the subscriber behind one indirect call, and allocates nothing.
@usableFromInline
internal class RunLoopTimerSubscriptionBase: Subscription {
    @usableFromInline let deliver: (RunLoopTimerSubscriptionBase, Date) -> Void

    @inlinable
    init(deliver: @escaping (RunLoopTimerSubscriptionBase, Date) -> Void) {
        self.deliver = deliver
    }

    /// Delivers `date` if the subscriber has demand; drops it otherwise.
    @inlinable @inline(__always)
    final func offer(_ date: Date) { deliver(self, date) }
    /// The connection was cancelled: let go of the subscriber.
    @usableFromInline func disconnect() { violation("abstract RunLoopTimerSubscriptionBase.disconnect") }
    @usableFromInline func request(_ demand: Subscribers.Demand) { violation("abstract RunLoopTimerSubscriptionBase.request") }
    @usableFromInline func cancel() { violation("abstract RunLoopTimerSubscriptionBase.cancel") }
}

/// The subscription for one concrete subscriber type: demand and the link
/// to the subscriber in one inline mutex; values go out after it is
/// released, so the subscriber may request or cancel re-entrantly.
@usableFromInline
internal final class RunLoopTimerSubscription<Downstream: Subscriber>: RunLoopTimerSubscriptionBase,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == Date, Downstream.Failure == Never
{
    @usableFromInline
    internal struct State {
        /// `nil` once cancelled or disconnected.
        @usableFromInline var downstream: Downstream?
        @usableFromInline var demand: Subscribers.Demand = .none
        @usableFromInline weak var publisher: Timer.TimerPublisher?

        @inlinable
        init(downstream: Downstream, publisher: Timer.TimerPublisher) {
            self.downstream = downstream
            self.publisher = publisher
        }
    }

    @usableFromInline let state: Mutex<UncheckedSendable<State>>

    @inlinable
    init(publisher: Timer.TimerPublisher, downstream: Downstream) {
        state = Mutex(UncheckedSendable(State(downstream: downstream, publisher: publisher)))
        super.init(deliver: { base, date in
            unsafeDowncast(base, to: RunLoopTimerSubscription<Downstream>.self).offerNow(date)
        })
    }

    @inlinable
    func offerNow(_ date: Date) {
        let target = state.withLock { s -> UncheckedSendable<Downstream?> in
            guard s.value.demand > 0, let downstream = s.value.downstream else { return UncheckedSendable(nil) }
            s.value.demand -= 1
            return UncheckedSendable(downstream)
        }
        guard let downstream = target.value else { return }
        let more = downstream.receive(date)
        if more > 0 {
            state.withLock { s in
                if s.value.downstream != nil { s.value.demand += more }
            }
        }
    }

    @usableFromInline
    override func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        state.withLock { s in
            if s.value.downstream != nil { s.value.demand += demand }
        }
    }

    /// Detaches from the publisher after the firing in flight (strict
    /// cancel); the subscriber is released outside every lock.
    @usableFromInline
    override func cancel() {
        let publisher = state.withLock { UncheckedSendable($0.value.publisher) }.value
        var taken = UncheckedSendable<Downstream?>(nil)
        if let publisher {
            publisher.withGate {
                taken = takeDownstream()
                if taken.value != nil { publisher.detach(self) }
            }
        } else {
            taken = takeDownstream()
        }
        _ = taken
    }

    /// The connection was cancelled; called under the publisher's gate.
    @usableFromInline
    override func disconnect() {
        _ = takeDownstream()
    }

    @usableFromInline
    internal func takeDownstream() -> UncheckedSendable<Downstream?> {
        state.withLock { s -> UncheckedSendable<Downstream?> in
            defer {
                s.value.downstream = nil
                s.value.publisher = nil
            }
            return UncheckedSendable(s.value.downstream)
        }
    }

    @usableFromInline var description: String { "TimerPublisher" }
    @usableFromInline var customMirror: Mirror {
        Mirror(self, children: ["demand": state.withLock { $0.value.demand }])
    }
    @usableFromInline var playgroundDescription: Any { description }
}
