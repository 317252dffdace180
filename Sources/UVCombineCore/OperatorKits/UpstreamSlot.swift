import Synchronization

/// One input of an operator with several upstreams (`merge`,
/// `combineLatest`, `zip`, `flatMap`), kept in the operator's locked state.
///
/// Besides the subscription and its phase, a slot records the calls still
/// owed to the upstream: demand to request and whether to cancel. They are
/// recorded under the lock, possibly by a call nested inside a delivery,
/// and made later by ``runUpstreamActions(_:_:)`` outside every lock and
/// outside the ``DownstreamGate``.
@usableFromInline
internal struct UpstreamSlot {
    @usableFromInline
    internal enum Phase: UInt8 {
        case awaitingSubscription
        case active
        case finished
    }

    @usableFromInline var phase: Phase = .awaitingSubscription
    @usableFromInline var subscription: (any Subscription)?
    /// Demand to request from this upstream once the gate is released.
    @usableFromInline var owed: Subscribers.Demand = .none
    /// This upstream is to be cancelled once the gate is released.
    @usableFromInline var owesCancel = false

    @inlinable
    internal init() {}

    /// Marks a completion: the subscription is dropped, nothing more is
    /// owed. Returns false if the slot had already finished.
    @inlinable
    internal mutating func finish() -> Bool {
        guard phase != .finished else { return false }
        phase = .finished
        subscription = nil
        owed = .none
        return true
    }
}

/// Locked state that holds upstream slots.
@usableFromInline
internal protocol UpstreamSlotOwner {
    var slots: ContiguousArray<UpstreamSlot> { get set }
}

extension UpstreamSlotOwner {
    /// Records that every live upstream is to be cancelled. Returns whether
    /// there is anything to cancel.
    @inlinable
    internal mutating func markAllForCancel() -> Bool {
        var any = false
        for i in slots.indices {
            slots[i].owed = .none
            if slots[i].subscription != nil {
                slots[i].owesCancel = true
                any = true
            }
        }
        return any
    }

    /// Records `demand` as owed to every active upstream except `skipping`.
    /// Returns whether anything was recorded.
    @inlinable
    internal mutating func owe(_ demand: Subscribers.Demand, skipping: Int = -1) -> Bool {
        var any = false
        for i in slots.indices where i != skipping && slots[i].phase == .active {
            slots[i].owed += demand
            any = true
        }
        return any
    }
}

/// Makes the requests and cancels recorded in the slots, one upstream at a
/// time, outside every lock. Call only when not holding the operator's
/// ``DownstreamGate``. Loops while `pending` is raised again meanwhile.
@inlinable
internal func runUpstreamActions<State: UpstreamSlotOwner>(
    _ state: borrowing Locked<State>, _ pending: borrowing Atomic<Bool>
) {
    while pending.exchange(false, ordering: .acquiringAndReleasing) {
        runSlotActions(state)
    }
}

/// One pass of ``runUpstreamActions(_:_:)`` over the slots, for operators
/// that lower the pending flag themselves.
@inlinable
internal func runSlotActions<State: UpstreamSlotOwner>(_ state: borrowing Locked<State>) {
    var i = 0
    while true {
        let action = state.withLock { s -> (any Subscription, Subscribers.Demand)? in
            while i < s.slots.count {
                if let action = s.slots[i].takeOwedCall() { return action }
                i &+= 1
            }
            return nil
        }
        guard let (subscription, demand) = action else { return }
        UpstreamSlot.perform(subscription, demand)
        i &+= 1
    }
}

/// One pass like ``runSlotActions(_:)`` that visits slot 0 last. For
/// operators whose slot 0 is the outer upstream of inner publishers
/// (`flatMap`, `switchToLatest`): Combine cancels the inner publishers
/// before the outer subscription.
///
/// `innerRequestsOneAtATime`: a finite demand owed to an inner publisher is
/// requested as that many `.max(1)` calls (`flatMap`: Combine asks a child
/// for one more per buffered value it delivers, not for their sum).
@inlinable
internal func runSlotActionsOuterLast<State: UpstreamSlotOwner>(_ state: borrowing Locked<State>,
                                                                innerRequestsOneAtATime: Bool = false) {
    // Visit j = 0, 1, ... as slot (j + 1) when that is in range, slot 0
    // at the end; slots appended meanwhile are still visited before 0.
    var j = 0
    while true {
        let action = state.withLock { s -> (any Subscription, Subscribers.Demand, inner: Bool)? in
            while j < s.slots.count {
                let i = j &+ 1 == s.slots.count ? 0 : j &+ 1
                j &+= 1
                if let action = s.slots[i].takeOwedCall() { return (action.0, action.1, i != 0) }
            }
            return nil
        }
        guard let (subscription, demand, inner) = action else { return }
        if innerRequestsOneAtATime && inner && demand.rawValue > 0 && !demand.isUnlimited {
            var left = demand.rawValue
            while left > 0 {
                subscription.request(.max(1))
                left &-= 1
            }
        } else {
            UpstreamSlot.perform(subscription, demand)
        }
    }
}

extension UpstreamSlot {
    /// Takes the call this slot owes its upstream, if any: the subscription
    /// with `.none` for a cancel (the slot lets go of it), or with the owed
    /// demand for a request. Under the operator's lock.
    @inlinable
    internal mutating func takeOwedCall() -> (any Subscription, Subscribers.Demand)? {
        if owesCancel {
            owesCancel = false
            owed = .none
            guard let subscription else { return nil }
            self.subscription = nil
            return (subscription, .none)
        }
        guard owed.rawValue > 0, let subscription else { return nil }
        defer { owed = .none }
        return (subscription, owed)
    }

    /// Makes a call taken by ``takeOwedCall()``, outside every lock.
    @inlinable @inline(__always)
    internal static func perform(_ subscription: any Subscription, _ demand: Subscribers.Demand) {
        if demand.rawValue == 0 {
            subscription.cancel()
        } else {
            subscription.request(demand)
        }
    }
}
