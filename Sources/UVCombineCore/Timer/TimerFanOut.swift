/// The subscriber side of a connectable timer publisher, shared by the two
/// fronts: `Timer.TimerPublisher` (Foundation's `Timer` on a run loop,
/// UVCombineFoundation) and `UVTimer.TimerPublisher` (a `uv_timer_t` on a
/// loop, UVCombineLoopFoundation), both with `Date` values. A front stores one
/// (a `let`: it is not copyable), attaches subscribers to it, calls
/// ``fire(_:)`` from its timer and ``disconnectAll()`` when a connection is
/// cancelled.
///
/// Generic over the value (both fronts use `Date`) so that the core names no
/// Foundation type: UVCombineCore imports only the standard library and
/// Synchronization.
///
/// A thin front over the subjects' fan-out engine (`SubjectEngine`): the
/// subscriber list, per-subscriber demand, the re-entrant delivery gate and
/// the subscriptions are the ones `PassthroughSubject` uses; a timer only
/// adds the rules below, none of which needs code of its own in the engine.
///
/// Semantics, as Combine's timer publishers: every subscriber gets every
/// firing while it has demand; a subscriber with no outstanding demand
/// misses the firing (values are dropped, never queued); a cancelled
/// connection detaches the current subscribers without a completion
/// (`SubjectEngine.detachAll()`), so a later connection serves only later
/// subscribers; a timer never completes. `request(.none)` traps, as it did
/// before the timers shared the engine (the subjects accept it).
///
/// Threading: attach, request, cancel and `disconnectAll()` from any
/// thread; `fire(_:)` from the timer's thread. A firing is delivered while
/// holding the engine's gate, which cancels and `disconnectAll()` take too:
/// once either has returned, no value reaches the subscribers it detached
/// (a cancel from another thread waits for the firing in flight; one from
/// inside the subscriber's `receive` is re-entrant). A firing allocates
/// nothing. Destroying the fan-out (with its front) detaches the
/// subscribers still attached, so nothing stays in a cycle.
///
/// Cost, against the list of its own the fan-out had before: a firing
/// takes one lock (the gate) instead of a lock per subscriber; the same
/// 8 mallocs per `UVTimer.publish` + `sink` + `connect()` (the engine's
/// storage block where the old list had one more untraced, probably its
/// weak reference's side table; the first subscriber is inline in both),
/// none per firing or cancel (docs/engineering-notes.md, "The timers'
/// fan-out is the subjects'").
///
/// ```swift
/// let fanOut = TimerFanOut<Date>()
/// fanOut.attach(subscriber)   // in the front's receive(subscriber:)
/// fanOut.fire(Date())         // from the front's timer
/// fanOut.disconnectAll()      // from the connection's cancel()
/// ```
@usableFromInline
package struct TimerFanOut<Value>: ~Copyable {
    /// The engine's owner and the subscriptions' parent. A class apart from
    /// the front: subscriptions hold their parent strongly until they leave
    /// (as a subject's do), and the front must stay free to go, which is
    /// what detaches them (`deinit`).
    @usableFromInline internal let hub = TimerHub<Value>()

    /// An empty fan-out. Any thread.
    package init() {}

    deinit {
        hub.engine.detachAll()
    }

    /// Attaches `subscriber` and hands it its subscription (described as
    /// `TimerPublisher`); it receives the firings of every current and later
    /// connection while it has demand. Any thread.
    @inlinable
    package func attach<S: Subscriber>(_ subscriber: S) where S.Input == Value, S.Failure == Never {
        hub.engine.subscribe(subscriber, parent: hub, name: "TimerPublisher", replaysLatest: false)
    }

    /// Offers one firing to every subscriber, holding the gate; subscribers
    /// that attach meanwhile see only later firings. The timer's thread.
    package func fire(_ value: Value) {
        hub.engine.send(value, replaysLatest: false)
    }

    /// Detaches every current subscriber (no completion), after the firing
    /// in flight; each lets go of its subscriber. Any thread.
    package func disconnectAll() {
        hub.engine.detachAll()
    }
}

/// Owns a timer fan-out's engine and answers its subscriptions' requests
/// and cancels (their `ConduitParent`).
///
/// Threading: any thread; all state is behind the engine's gate.
///
/// ```swift
/// let hub = TimerHub<Date>()
/// hub.engine.send(Date(), replaysLatest: false)
/// ```
@usableFromInline
internal final class TimerHub<Value>: ConduitParent, @unchecked Sendable {
    // @unchecked Sendable: every piece of mutable state is behind the
    // engine's gate.
    @usableFromInline typealias Output = Value
    @usableFromInline typealias Failure = Never

    @usableFromInline internal let engine = SubjectEngine<Value, Never>(latest: nil)

    @usableFromInline
    internal init() {}

    @inlinable
    internal func conduitRequested(_ conduit: ConduitBase<Value, Never>, _ demand: Subscribers.Demand) {
        demand.assertNonZero()
        engine.request(demand, for: conduit)
    }

    @inlinable
    internal func conduitCancelled(_ conduit: ConduitBase<Value, Never>) {
        engine.cancel(conduit)
    }

    @usableFromInline
    internal func conduitDemand(_ conduit: ConduitBase<Value, Never>) -> Subscribers.Demand? {
        engine.demand(of: conduit)
    }
}
