/// A value or a completion that an operator has scheduled for delivery.
@usableFromInline
internal enum ScheduledEvent<Input, Failure: Error> {
    case value(Input)
    case completion(Subscribers.Completion<Failure>)
}

/// The events an operator scheduled one action each for (`receive(on:)`,
/// `delay`, `timeout`), kept inside the owner's mutex.
///
/// Combine schedules one action per value and per completion, each
/// capturing the operator strongly, so a custom scheduler sees exactly one
/// `schedule` call per event and the operator stays alive until the last
/// of them ran. Here the owner hands the scheduler the same pre-formed
/// closure every time (no allocation per event); the events wait in a ring
/// in the order they arrived, and each action that runs delivers the
/// oldest one. The owner is held (`keepAlive`) while any action is still
/// to run, which is what Combine's strong capture holds.
///
/// Delivery is serial: an action that runs while another one delivers (on
/// a concurrent queue, or nested inside a delivery on a synchronous
/// scheduler such as `ImmediateScheduler`) only counts itself as owed, and
/// the delivering action delivers its event after its own. This keeps the
/// order, never calls the subscriber twice at once, and bounds the stack
/// depth on synchronous schedulers.
@usableFromInline
internal struct ScheduledEvents<Input, Failure: Error> {
    @usableFromInline internal var events = RingBuffer<ScheduledEvent<Input, Failure>>()
    /// Actions scheduled whose event has not been taken yet.
    @usableFromInline internal var scheduled = 0
    /// Actions that ran and whose event the delivering action still owes.
    @usableFromInline internal var owed = 0
    /// An action is delivering.
    @usableFromInline internal var delivering = false
    /// The owner, while `scheduled > 0`.
    @usableFromInline internal var keepAlive: AnyObject?

    @inlinable
    internal init() {}

    /// Queues `event`; the owner then schedules one action for it.
    @inlinable
    internal mutating func push(_ event: ScheduledEvent<Input, Failure>, owner: AnyObject) {
        events.append(event)
        scheduled &+= 1
        if keepAlive == nil { keepAlive = owner }
    }

    /// One scheduled action runs. Returns whether it is to deliver (loop on
    /// ``next()``); otherwise the action delivering now delivers for it.
    @inlinable
    internal mutating func actionRan() -> Bool {
        owed &+= 1
        if delivering { return false }
        delivering = true
        return true
    }

    /// What the delivering action does next.
    @usableFromInline
    internal enum Next {
        /// Deliver this event; `nil` when it was dropped (after cancel).
        case event(ScheduledEvent<Input, Failure>?)
        /// Nothing owed: stop. Release `release` (the owner, once no
        /// action is left) outside the lock.
        case done(release: AnyObject?)
    }

    /// The next event the delivering action owes.
    @inlinable
    internal mutating func next() -> Next {
        guard owed > 0 else {
            delivering = false
            guard scheduled == 0 else { return .done(release: nil) }
            let owner = keepAlive
            keepAlive = nil
            return .done(release: owner)
        }
        owed &-= 1
        scheduled &-= 1
        return .event(events.popFirst())
    }

    /// Drops the events not delivered yet; their actions still run (and
    /// hold the owner until then) but deliver nothing.
    @inlinable
    internal mutating func dropPending() {
        events.removeAll(keepingCapacity: false)
    }
}
