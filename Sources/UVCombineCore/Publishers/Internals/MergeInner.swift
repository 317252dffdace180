import Synchronization

/// The subscription behind `Merge` … `Merge8` and `MergeMany`: one
/// downstream, `count` inputs of the same output and failure type.
///
/// ## Demand (Combine's scheme)
///
/// Downstream demand is shared by all inputs. While it is finite, each input
/// is asked for one value at a time (`.max(1)` on subscription, then `.max(1)`
/// returned with each value delivered). A value that arrives while the
/// downstream has no demand waits in that input's one-value buffer, and the
/// input is not asked for more until the value has gone downstream (a later
/// `request` delivers the waiting values in input order, then asks each of
/// those inputs for one more). So at most one value per input is buffered,
/// and the inputs together never run more than `count` values ahead of the
/// downstream. Once the downstream asks for `.unlimited`, every input is
/// asked for `.unlimited` and values pass straight through.
///
/// An input that sends more than it was asked for (breaking the demand
/// contract) has the extra value replace the one waiting in its buffer, as
/// in Combine.
///
/// ## Completion
///
/// Finishes once every input has finished and every buffered value has been
/// delivered. The first failure cancels every other input and fails the
/// downstream; later events are ignored. `cancel()` cancels every input.
///
/// ## Threading
///
/// Inputs may deliver on any threads. Deliveries are serialised by a
/// ``DownstreamGate``; `cancel()` waits for a value in flight on another
/// thread. Upstream `request` and `cancel` calls are recorded under the lock
/// and made by the outermost caller after it has released the gate (see
/// `DownstreamGate`), never while holding it.
@usableFromInline
internal final class MergeInner<Downstream: Subscriber>: Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible
{
    @usableFromInline typealias Output = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    /// Values go out one at a time against a finite demand.
    @inlinable static var finiteMode: UInt8 { 0 }
    /// The downstream asked for `.unlimited`: values pass straight through.
    @inlinable static var unlimitedMode: UInt8 { 1 }
    /// Finished, failed or cancelled.
    @inlinable static var terminalMode: UInt8 { 2 }

    @usableFromInline
    internal struct State: UpstreamSlotOwner {
        @usableFromInline var slots: ContiguousArray<UpstreamSlot>
        /// Per input, a value that arrived while the downstream had no
        /// demand.
        @usableFromInline var buffered: ContiguousArray<Output?>
        /// Requested by the downstream and not yet delivered.
        @usableFromInline var demand: Subscribers.Demand = .none
        @usableFromInline var finishedCount = 0
        @usableFromInline var bufferedCount = 0
        /// Every input has been asked for `.unlimited`.
        @usableFromInline var unlimitedForwarded = false

        @inlinable
        init(count: Int) {
            slots = ContiguousArray(repeating: UpstreamSlot(), count: count)
            buffered = ContiguousArray(repeating: nil, count: count)
        }
    }

    /// What the drain loop does next, decided under the lock.
    @usableFromInline
    internal enum DrainStep {
        case deliver(Output)
        case finish
        case stop
    }

    @usableFromInline let downstream: Downstream
    @usableFromInline let gate = DownstreamGate()
    /// `finiteMode`, `unlimitedMode` or `terminalMode`. Written only while
    /// holding both the gate and the state lock; read under either, which
    /// lets the unlimited path skip the state lock entirely.
    @usableFromInline let mode = Atomic<UInt8>(0)
    /// A nested call changed something the outermost delivery must look at
    /// before it releases the gate. Set and read by the gate's holder only.
    @usableFromInline let drainNeeded = Atomic<Bool>(false)
    /// Upstream requests or cancels are recorded in `state`.
    @usableFromInline let actionsPending = Atomic<Bool>(false)
    @usableFromInline let state: Locked<State>
    /// `request` and `cancel` arrive through `any Subscription`, where only
    /// the unspecialised bodies are reachable; these non-capturing closures,
    /// formed where the subscriber type is known, run the specialised ones.
    @usableFromInline let requestImpl: (MergeInner, Subscribers.Demand) -> Void
    @usableFromInline let cancelImpl: (MergeInner) -> Void

    @inlinable
    init(downstream: Downstream, count: Int) {
        self.downstream = downstream
        state = Locked(State(count: count))
        requestImpl = { $0.performRequest($1) }
        cancelImpl = { $0.performCancel() }
    }

    /// The subscriber to hand input `index`.
    @inlinable
    func side(_ index: Int) -> MergeSide<Downstream> {
        MergeSide(inner: self, index: index)
    }

    // MARK: Inputs

    @inlinable
    func receive(subscription: any Subscription, input i: Int) {
        let demand = state.withLock { s -> Subscribers.Demand? in
            guard mode.load(ordering: .relaxed) != Self.terminalMode,
                  s.slots[i].phase == .awaitingSubscription
            else { return nil }
            s.slots[i].phase = .active
            s.slots[i].subscription = subscription
            return s.demand.isUnlimited ? .unlimited : .max(1)
        }
        // A fresh subscription that has been asked for nothing cannot be
        // sending to us, so requesting directly is safe even inside the gate.
        if let demand {
            subscription.request(demand)
        } else {
            subscription.cancel()
        }
    }

    @inlinable
    func receive(_ value: Output, input i: Int) -> Subscribers.Demand {
        let (answer, outermost) = gate.withGate { nested -> (Subscribers.Demand, Bool) in
            let mode = self.mode.load(ordering: .relaxed)
            if mode == Self.unlimitedMode {
                _ = downstream.receive(value)
                if !nested && drainNeeded.load(ordering: .relaxed) { drain() }
                return (.none, !nested)
            }
            if mode == Self.terminalMode { return (.none, !nested) }
            let deliver = state.withLock { s -> Bool in
                if s.demand.rawValue == 0 {
                    if s.buffered[i] == nil { s.bufferedCount &+= 1 }
                    s.buffered[i] = value
                    return false
                }
                if !s.demand.isUnlimited {
                    s.demand = Subscribers.Demand(rawValue: s.demand.rawValue &- 1)
                }
                return true
            }
            guard deliver else { return (.none, !nested) }
            let more = downstream.receive(value)
            if more.rawValue > 0 { addDemand(more) }
            if nested {
                drainNeeded.store(true, ordering: .relaxed)
            } else {
                drain()
            }
            return (.max(1), !nested)
        }
        if outermost && actionsPending.load(ordering: .acquiring) { runUpstreamActions() }
        return answer
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>, input i: Int) {
        let outermost = gate.withGate { nested -> Bool in
            switch completion {
            case .finished:
                let counted = state.withLock { s -> Bool in
                    guard mode.load(ordering: .relaxed) != Self.terminalMode,
                          s.slots[i].finish()
                    else { return false }
                    s.finishedCount &+= 1
                    return true
                }
                if counted {
                    if nested {
                        drainNeeded.store(true, ordering: .relaxed)
                    } else {
                        drain()
                    }
                }
            case .failure:
                let fails = state.withLock { s -> Bool in
                    guard mode.load(ordering: .relaxed) != Self.terminalMode else { return false }
                    _ = s.slots[i].finish()
                    lockedTerminate(&s)
                    return true
                }
                if fails { downstream.receive(completion: completion) }
            }
            return !nested
        }
        if outermost && actionsPending.load(ordering: .acquiring) { runUpstreamActions() }
    }

    // MARK: Delivery (holding the gate)

    /// Adds demand the downstream returned or requested. Holding the gate.
    @inlinable
    @discardableResult
    func addDemand(_ more: Subscribers.Demand) -> Bool {
        state.withLock { s -> Bool in
            guard mode.load(ordering: .relaxed) != Self.terminalMode else { return false }
            s.demand += more
            if s.demand.isUnlimited { mode.store(Self.unlimitedMode, ordering: .relaxed) }
            return true
        }
    }

    /// Delivers buffered values while there is demand, forwards `.unlimited`
    /// to the inputs once, and finishes when everything is done. Holding the
    /// gate, as its outermost frame.
    @inlinable
    func drain() {
        drainNeeded.store(false, ordering: .relaxed)
        while true {
            let step = state.withLock { s -> DrainStep in
                lockedNextStep(&s)
            }
            switch step {
            case .deliver(let value):
                let more = downstream.receive(value)
                if more.rawValue > 0 { addDemand(more) }
            case .finish:
                downstream.receive(completion: .finished)
                return
            case .stop:
                return
            }
        }
    }

    @inlinable
    func lockedNextStep(_ s: inout State) -> DrainStep {
        if mode.load(ordering: .relaxed) == Self.terminalMode { return .stop }
        if s.bufferedCount > 0 && s.demand.rawValue > 0 {
            var i = 0
            while s.buffered[i] == nil { i &+= 1 }
            var value: Output? = nil
            swap(&value, &s.buffered[i])
            s.bufferedCount &-= 1
            if !s.demand.isUnlimited {
                s.demand = Subscribers.Demand(rawValue: s.demand.rawValue &- 1)
            }
            if s.slots[i].phase == .active {
                s.slots[i].owed += 1
                actionsPending.store(true, ordering: .releasing)
            }
            return .deliver(value.unsafelyUnwrapped)
        }
        if s.demand.isUnlimited && !s.unlimitedForwarded {
            s.unlimitedForwarded = true
            if s.owe(.unlimited) { actionsPending.store(true, ordering: .releasing) }
        }
        if s.finishedCount == s.slots.count && s.bufferedCount == 0 {
            mode.store(Self.terminalMode, ordering: .relaxed)
            return .finish
        }
        return .stop
    }

    /// Marks the end: no more values, every live input to be cancelled.
    /// Holding the gate and the lock.
    @inlinable
    func lockedTerminate(_ s: inout State) {
        mode.store(Self.terminalMode, ordering: .relaxed)
        for i in s.buffered.indices { s.buffered[i] = nil }
        s.bufferedCount = 0
        if s.markAllForCancel() { actionsPending.store(true, ordering: .releasing) }
    }

    /// Makes the upstream calls recorded in `state`, outside the gate.
    @inlinable
    func runUpstreamActions() {
        UVCombineCore.runUpstreamActions(state, actionsPending)
    }

    // MARK: Subscription

    /// `.none` is accepted and changes nothing, as Combine's merge does
    /// (its `request` returns early for zero demand; zip and combineLatest
    /// trap instead, as Combine's do).
    @inlinable
    func request(_ demand: Subscribers.Demand) {
        guard demand.rawValue > 0 else { return }
        requestImpl(self, demand)
    }

    @inlinable
    func performRequest(_ demand: Subscribers.Demand) {
        let outermost = gate.withGate { nested -> Bool in
            if addDemand(demand) {
                if nested {
                    drainNeeded.store(true, ordering: .relaxed)
                } else {
                    drain()
                }
            }
            return !nested
        }
        if outermost && actionsPending.load(ordering: .acquiring) { runUpstreamActions() }
    }

    @inlinable
    func cancel() {
        cancelImpl(self)
    }

    @inlinable
    func performCancel() {
        let outermost = gate.withGate { nested -> Bool in
            state.withLock { s in
                guard mode.load(ordering: .relaxed) != Self.terminalMode else { return }
                lockedTerminate(&s)
            }
            return !nested
        }
        if outermost && actionsPending.load(ordering: .acquiring) { runUpstreamActions() }
    }

    @usableFromInline var description: String { "Merge" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}

/// The subscriber `Merge` hands each input: forwards to the shared inner
/// with the input's index. A struct, so subscribing an input allocates
/// nothing beyond what the input itself allocates.
@usableFromInline
internal struct MergeSide<Downstream: Subscriber>: Subscriber, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible
{
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let inner: MergeInner<Downstream>
    @usableFromInline let index: Int
    @usableFromInline let combineIdentifier = CombineIdentifier()

    @inlinable
    init(inner: MergeInner<Downstream>, index: Int) {
        self.inner = inner
        self.index = index
    }

    @inlinable
    func receive(subscription: any Subscription) {
        inner.receive(subscription: subscription, input: index)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        inner.receive(input, input: index)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        inner.receive(completion: completion, input: index)
    }

    @usableFromInline var description: String { "Merge" }
    @usableFromInline var customMirror: Mirror {
        Mirror(self, children: ["parentSubscription": inner.combineIdentifier])
    }
    @usableFromInline var playgroundDescription: Any { description }
}
