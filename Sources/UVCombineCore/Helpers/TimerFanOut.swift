#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// The subscriber side of a connectable timer publisher, shared by the two
/// fronts: `Timer.TimerPublisher` (Foundation's `Timer` on a run loop) and
/// `UVTimer.TimerPublisher` (a `uv_timer_t` on a loop). A front owns one,
/// attaches subscribers to it, calls ``fire(_:)`` from its timer and
/// ``disconnectAll()`` when a connection is cancelled.
///
/// Semantics, as Combine's timer publishers: every subscriber gets every
/// firing while it has demand; a subscriber with no outstanding demand
/// misses the firing (values are dropped, never queued); a cancelled
/// connection detaches the current subscribers without a completion, so a
/// later connection serves only later subscribers.
///
/// Threading: attach, request, cancel and `disconnectAll()` from any
/// thread; `fire(_:)` from the timer's thread. A firing is delivered while
/// holding a ``DownstreamGate``, which `cancel()` and `disconnectAll()` take
/// too: once either has returned, no value reaches the subscribers it
/// detached (a cancel from another thread waits for the firing in flight;
/// one from inside the subscriber's `receive` is re-entrant). A firing
/// allocates nothing. Releasing the fan-out (its front's `deinit`) lets go
/// of the subscribers still attached, so nothing stays in a cycle.
///
/// ```swift
/// let fanOut = TimerFanOut()
/// fanOut.attach(subscriber)   // in the front's receive(subscriber:)
/// fanOut.fire(Date())         // from the front's timer
/// fanOut.disconnectAll()      // from the connection's cancel()
/// ```
@usableFromInline
package final class TimerFanOut: @unchecked Sendable {
    // @unchecked Sendable: the subscriber list lives in its mutex, and the
    // gate is a mutex and an atomic.

    /// The attached subscriptions.
    @usableFromInline internal let subscribers = Locked(TimerSubscriberList.empty)
    /// Held across each firing's deliveries and by `cancel` and
    /// `disconnectAll`, so that they wait for the value in flight.
    @usableFromInline internal let gate = DownstreamGate()

    /// An empty fan-out. Any thread.
    package init() {}

    deinit {
        disconnectAll()
    }

    /// Attaches `subscriber` and hands it its subscription; it receives the
    /// firings of every current and later connection while it has demand.
    /// Any thread.
    @inlinable
    package func attach<S: Subscriber>(_ subscriber: S) where S.Input == Date, S.Failure == Never {
        let subscription = TimerSubscription(fanOut: self, downstream: subscriber)
        subscribers.withLock { $0.insert(subscription) }
        subscriber.receive(subscription: subscription)
    }

    /// Offers one firing to every subscriber, holding the gate; subscribers
    /// that attach meanwhile see only later firings. The timer's thread.
    package func fire(_ date: Date) {
        gate.withGate { _ in
            // Copying the list out retains its storage; no allocation.
            let current = subscribers.withLock { $0 }
            current.forEach { $0.offer(date) }
        }
    }

    /// Removes `subscription` from the list. Called holding the gate.
    @usableFromInline
    internal func detach(_ subscription: TimerSubscriptionBase) {
        subscribers.withLock { $0.remove(subscription) }
    }

    /// Detaches every current subscriber (no completion), after the firing
    /// in flight; each lets go of its subscriber. Any thread.
    package func disconnectAll() {
        var taken = TimerSubscriberList.empty
        gate.withGate { _ in
            taken = subscribers.withLock { state -> TimerSubscriberList in
                defer { state = .empty }
                return state
            }
            taken.forEach { $0.disconnect() }
        }
        // The subscriptions are released here, outside the gate.
        _ = taken
    }
}

/// A timer fan-out's subscribers: `.empty`, `.single` or `.many`, so that
/// one subscriber (the common case) costs no array. Copying the list out of
/// the lock retains storage; it never copies elements.
@usableFromInline
internal enum TimerSubscriberList {
    case empty
    case single(TimerSubscriptionBase)
    case many(ContiguousArray<TimerSubscriptionBase>)

    @inlinable
    internal mutating func insert(_ subscription: TimerSubscriptionBase) {
        switch self {
        case .empty:
            self = .single(subscription)
        case .single(let existing):
            self = .many([existing, subscription])
        case .many(var all):
            self = .empty // drop our reference so the append does not copy
            all.append(subscription)
            self = .many(all)
        }
    }

    @usableFromInline
    internal mutating func remove(_ subscription: TimerSubscriptionBase) {
        switch self {
        case .empty:
            break
        case .single(let existing):
            if existing === subscription { self = .empty }
        case .many(var all):
            guard let index = all.firstIndex(where: { $0 === subscription }) else { return }
            self = .empty
            all.remove(at: index)
            self = all.count == 1 ? .single(all[0]) : .many(all)
        }
    }

    @inlinable @inline(__always)
    internal func forEach(_ body: (TimerSubscriptionBase) -> Void) {
        switch self {
        case .empty:
            break
        case .single(let subscription):
            body(subscription)
        case .many(let all):
            for subscription in all { body(subscription) }
        }
    }
}

/// One subscriber's link to a timer fan-out, non-generic over the
/// subscriber so the fan-out holds different subscribers in one list.
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
        /// Weak: the front (and with it the fan-out) may go while a
        /// subscriber still holds its subscription.
        @usableFromInline weak var fanOut: TimerFanOut?

        @inlinable
        init(downstream: Downstream, fanOut: TimerFanOut) {
            self.downstream = downstream
            self.fanOut = fanOut
        }
    }

    @usableFromInline let state: Locked<State>

    @inlinable
    init(fanOut: TimerFanOut, downstream: Downstream) {
        state = Locked(State(downstream: downstream, fanOut: fanOut))
        super.init(deliver: { base, date in
            unsafeDowncast(base, to: TimerSubscription<Downstream>.self).offerNow(date)
        })
    }

    @inlinable
    func offerNow(_ date: Date) {
        let target = state.withLock { s -> Downstream? in
            guard s.demand > 0, let downstream = s.downstream else { return nil }
            s.demand -= 1
            return downstream
        }
        guard let downstream = target else { return }
        let more = downstream.receive(date)
        if more > 0 {
            state.withLock { s in
                if s.downstream != nil { s.demand += more }
            }
        }
    }

    @usableFromInline
    override func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        state.withLock { s in
            if s.downstream != nil { s.demand += demand }
        }
    }

    /// Detaches from the fan-out after the firing in flight (strict
    /// cancel); the subscriber is released outside every lock.
    @usableFromInline
    override func cancel() {
        let fanOut = state.withLock { $0.fanOut }
        // No escaping closure here: a `var` captured by one is boxed on the
        // heap (it was once the one malloc per cancelled timer
        // subscription); `withGate`'s closure is non-escaping.
        var taken: Downstream?
        if let fanOut {
            fanOut.gate.withGate { _ in
                taken = takeDownstream()
                if taken != nil { fanOut.detach(self) }
            }
        } else {
            // The fan-out is gone (and with it every firing): just let go.
            taken = takeDownstream()
        }
        _ = taken
    }

    /// The connection was cancelled; called holding the fan-out's gate.
    @usableFromInline
    override func disconnect() {
        // Released here, outside the subscription's lock (the subscriber's
        // deinit may call back into it); the gate is re-entrant.
        _ = takeDownstream()
    }

    /// Detaches the subscriber from this subscription and returns it, to be
    /// released by the caller outside the lock.
    @usableFromInline
    internal func takeDownstream() -> Downstream? {
        state.withLock { s -> Downstream? in
            defer {
                s.downstream = nil
                s.fanOut = nil
            }
            return s.downstream
        }
    }

    @usableFromInline var description: String { "TimerPublisher" }
    @usableFromInline var customMirror: Mirror {
        Mirror(self, children: ["demand": state.withLock { $0.demand }])
    }
    @usableFromInline var playgroundDescription: Any { description }
}
