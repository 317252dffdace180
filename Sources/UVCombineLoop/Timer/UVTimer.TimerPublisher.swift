import CLibUV
import FoundationEssentials
import Synchronization
import UVCombineCore

extension UVTimer {
    /// A connectable publisher that repeatedly emits the current date on a
    /// given interval, driven by a `uv_timer_t` on a ``UVLoop``: Foundation's
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
        // @unchecked Sendable: the only mutable state is the subscriber list
        // inside the mutex.

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

        @usableFromInline
        internal struct State {
            @usableFromInline var subscribers: TimerSubscriberList = .empty
        }

        @usableFromInline internal let state = Mutex(UncheckedSendable(State()))
        /// Held across each firing's deliveries, so that a cancel from
        /// another thread waits for the value in flight.
        @usableFromInline internal let gate = Mutex(())
        /// The thread holding `gate`, or 0: calls from inside a delivery
        /// (a subscriber cancelling itself) must not take it again.
        @usableFromInline internal let gateOwner = Atomic<UInt>(0)

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

        deinit {
            // Subscribers left attached (never connected, never cancelled)
            // let go of their downstreams, so nothing stays in a cycle.
            disconnectAll()
        }

        /// Attaches `subscriber`; it receives the firings of every current
        /// and later connection while it has demand.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Date, S.Failure == Never {
            let subscription = TimerSubscription(publisher: self, downstream: subscriber)
            state.withLock { $0.value.subscribers.insert(subscription) }
            subscriber.receive(subscription: subscription)
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
            let connection = TimerConnection(publisher: self, origin: uv_hrtime())
            loop.submitOrdered(.open(connection))
            return connection
        }

        /// Delivers one firing to every subscriber with demand, holding the
        /// gate. Subscribers that attach meanwhile see only later firings.
        /// Loop thread.
        internal func fire(_ date: Date) {
            withGate {
                let subscribers = state.withLock { UncheckedSendable($0.value.subscribers) }
                subscribers.value.forEach { $0.offer(date) }
            }
        }

        /// Runs `body` holding the delivery gate; re-entrant for the thread
        /// that holds it. Any thread.
        @usableFromInline
        internal func withGate(_ body: () -> Void) {
            let me = currentThreadID()
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
        internal func detach(_ subscription: TimerSubscriptionBase) {
            state.withLock { $0.value.subscribers.remove(subscription) }
        }

        /// Detaches every current subscriber, after the firing in flight.
        /// Any thread.
        internal func disconnectAll() {
            var subscribers = UncheckedSendable(TimerSubscriberList.empty)
            withGate {
                subscribers = state.withLock { state -> UncheckedSendable<TimerSubscriberList> in
                    defer { state.value.subscribers = .empty }
                    return UncheckedSendable(state.value.subscribers)
                }
                subscribers.value.forEach { $0.disconnect() }
            }
            // The subscriptions are released here, outside the gate.
            _ = subscribers
        }

        /// `TimerPublisher`.
        public var description: String { "TimerPublisher" }
    }
}

/// One subscriber's link to a timer publisher, non-generic over the
/// subscriber so the publisher holds different subscribers in one list.
///
/// `deliver` is a stored non-capturing closure formed in the subclass's
/// `@inlinable` initialiser, specialised where the subscriber subscribed:
/// a firing runs specialised code behind one indirect call and allocates
/// nothing (see docs/engineering-notes.md).
@usableFromInline
internal class TimerSubscriptionBase: Subscription {
    @usableFromInline let deliver: (TimerSubscriptionBase, Date) -> Void

    @inlinable
    init(deliver: @escaping (TimerSubscriptionBase, Date) -> Void) {
        self.deliver = deliver
    }

    /// Delivers `date` if the subscriber has demand; drops it otherwise.
    @inlinable @inline(__always)
    final func offer(_ date: Date) { deliver(self, date) }
    /// The connection was cancelled: let go of the subscriber.
    @usableFromInline func disconnect() { violation("abstract TimerSubscriptionBase.disconnect") }
    @usableFromInline func request(_ demand: Subscribers.Demand) { violation("abstract TimerSubscriptionBase.request") }
    @usableFromInline func cancel() { violation("abstract TimerSubscriptionBase.cancel") }
}

/// The subscription for one concrete subscriber type. Demand and the link
/// to the subscriber sit in one inline mutex; values go out after it is
/// released, so the subscriber may request or cancel re-entrantly.
@usableFromInline
internal final class TimerSubscription<Downstream: Subscriber>: TimerSubscriptionBase,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == Date, Downstream.Failure == Never
{
    @usableFromInline
    internal struct State {
        /// `nil` once cancelled or disconnected.
        @usableFromInline var downstream: Downstream?
        @usableFromInline var demand: Subscribers.Demand = .none
        @usableFromInline weak var publisher: UVTimer.TimerPublisher?

        @inlinable
        init(downstream: Downstream, publisher: UVTimer.TimerPublisher) {
            self.downstream = downstream
            self.publisher = publisher
        }
    }

    @usableFromInline let state: Mutex<UncheckedSendable<State>>

    @inlinable
    init(publisher: UVTimer.TimerPublisher, downstream: Downstream) {
        state = Mutex(UncheckedSendable(State(downstream: downstream, publisher: publisher)))
        super.init(deliver: { base, date in
            unsafeDowncast(base, to: TimerSubscription<Downstream>.self).offerNow(date)
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
        if demand == .none { violation("Subscription.request(.none): demand must not be zero") }
        state.withLock { s in
            if s.value.downstream != nil { s.value.demand += demand }
        }
    }

    /// Detaches from the publisher after the firing in flight (strict
    /// cancel); the subscriber is released outside every lock.
    @usableFromInline
    override func cancel() {
        let publisher = state.withLock { UncheckedSendable($0.value.publisher) }.value
        // No local closure here: a `var` captured by one is boxed on the
        // heap (it was the one malloc per cancelled timer subscription);
        // `withGate`'s closure is non-escaping.
        var taken = UncheckedSendable<Downstream?>(nil)
        if let publisher {
            publisher.withGate {
                taken = takeDownstream()
                if taken.value != nil { publisher.detach(self) }
            }
        } else {
            // The publisher is gone (and with it every firing): just let go.
            taken = takeDownstream()
        }
        _ = taken
    }

    /// The connection was cancelled; called under the publisher's gate.
    @usableFromInline
    override func disconnect() {
        // Released here, outside the subscription's lock (the subscriber's
        // deinit may call back into it); the publisher's gate is re-entrant.
        _ = takeDownstream()
    }

    /// Detaches the subscriber from this subscription and returns it, to be
    /// released by the caller outside the lock.
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
