import Synchronization

/// The subscription behind `CombineLatest`, `CombineLatest3` and
/// `CombineLatest4`.
///
/// `Values` holds the latest value of each input (a tuple of optionals);
/// each input's subscriber stores into it with a non-capturing closure, and
/// `combine` turns it into the output once every input has a value. Both
/// closures are formed where the concrete types are known, so the value
/// path runs specialised code and boxes nothing.
///
/// ## Subscription order (Combine's)
///
/// Every input is subscribed first; the downstream gets this subscription
/// after that (``handOverSubscription()``), so values an input sends while
/// being subscribed, before or after its own subscription, only become its
/// latest value: nothing has been requested yet. A completion that comes
/// before the downstream has its subscription is delivered right after it.
///
/// ## Demand (Combine's scheme)
///
/// Every request from the downstream is passed to every input, and so is
/// demand the downstream returns from `receive(_:)`. An output goes out only
/// while the downstream has demand; a value that arrives without demand just
/// replaces its input's latest value (one value per input is kept, the
/// newest). So the downstream never receives more than it asked for, and no
/// input is asked for more than the downstream asked for.
///
/// ## Completion
///
/// Finishes when every input has finished. The first failure cancels the
/// other inputs and fails the downstream. `cancel()` cancels every input.
///
/// ## Threading
///
/// Inputs may deliver on any threads; deliveries are serialised by a
/// ``DownstreamGate`` and `cancel()` waits for an output in flight. Upstream
/// calls are made outside the gate (see `DownstreamGate`).
@usableFromInline
internal final class CombineLatestInner<Values, Downstream: Subscriber>: CombiningInputEngine,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
    @usableFromInline typealias Output = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure
    @usableFromInline typealias Store = Values

    @usableFromInline
    internal struct State: UpstreamSlotOwner {
        @usableFromInline var slots: ContiguousArray<UpstreamSlot>
        @usableFromInline var values: Values
        /// Requested by the downstream and not yet delivered.
        @usableFromInline var demand: Subscribers.Demand = .none
        @usableFromInline var finishedCount = 0
        @usableFromInline var terminal = false
        @usableFromInline var held = HeldCompletion<Failure>()

        @inlinable
        init(count: Int, values: Values) {
            slots = ContiguousArray(repeating: UpstreamSlot(), count: count)
            self.values = values
        }

        /// Ends with `completion`: returned to deliver now, or kept until
        /// the downstream has its subscription.
        @inlinable
        mutating func end(with completion: Subscribers.Completion<Failure>) -> Subscribers.Completion<Failure>? {
            terminal = true
            return held.deliverable(completion)
        }
    }

    @usableFromInline let downstream: Downstream
    @usableFromInline let combine: (Values) -> Output?
    @usableFromInline let gate = DownstreamGate()
    /// Upstream requests or cancels are recorded in `state`.
    @usableFromInline let actionsPending = Atomic<Bool>(false)
    @usableFromInline let state: Locked<State>
    /// `request` and `cancel` arrive through `any Subscription`, where only
    /// the unspecialised bodies are reachable; these non-capturing closures,
    /// formed where the types are known, run the specialised ones.
    @usableFromInline let requestImpl: (CombineLatestInner, Subscribers.Demand) -> Void
    @usableFromInline let cancelImpl: (CombineLatestInner) -> Void

    @inlinable
    init(downstream: Downstream, count: Int, values: Values, combine: @escaping (Values) -> Output?) {
        self.downstream = downstream
        self.combine = combine
        state = Locked(State(count: count, values: values))
        requestImpl = { $0.performRequest($1) }
        cancelImpl = { $0.performCancel() }
    }

    /// The subscriber to hand input `index`; `store` writes its value into
    /// `Values`.
    @inlinable
    func side<Input>(_ index: Int, store: @escaping (inout Values, Input) -> Void)
        -> CombiningInputSide<CombineLatestInner, Input>
    {
        CombiningInputSide(inner: self, index: index, store: store)
    }

    /// Hands the downstream this subscription once every input has been
    /// subscribed, then a completion that came in the meantime.
    @inlinable
    func handOverSubscription() {
        let outermost = deliverSubscription(
            self, to: downstream, gate: gate, delivered: { state.withLock { $0.held.subscriptionDelivered() } })
        if outermost && actionsPending.load(ordering: .acquiring) { runUpstreamActions() }
    }

    // MARK: Inputs

    @inlinable
    func receive(subscription: any Subscription, input i: Int) {
        let demand = state.withLock { s -> Subscribers.Demand? in
            guard !s.terminal, s.slots[i].phase == .awaitingSubscription else { return nil }
            s.slots[i].phase = .active
            s.slots[i].subscription = subscription
            return s.demand
        }
        // A fresh subscription that has been asked for nothing cannot be
        // sending to us, so requesting directly is safe even inside the gate.
        guard let demand else {
            subscription.cancel()
            return
        }
        if demand.rawValue > 0 { subscription.request(demand) }
    }

    @inlinable
    func receive<Input>(_ value: Input, input i: Int, store: (inout Values, Input) -> Void) -> Subscribers.Demand {
        let (answer, outermost) = gate.withGate { nested -> (Subscribers.Demand, Bool) in
            let output = state.withLock { s -> Output? in
                guard !s.terminal else { return nil }
                store(&s.values, value)
                guard s.demand.rawValue > 0, let output = combine(s.values) else {
                    return nil
                }
                if !s.demand.isUnlimited {
                    s.demand = Subscribers.Demand(rawValue: s.demand.rawValue &- 1)
                }
                return output
            }
            guard let output = output else { return (.none, !nested) }
            let more = downstream.receive(output)
            if more.rawValue > 0 {
                state.withLock { s in
                    guard !s.terminal else { return }
                    s.demand += more
                    // The sending input gets `more` as the answer; the others
                    // are asked once the gate is released.
                    if s.owe(more, skipping: i) { actionsPending.store(true, ordering: .releasing) }
                }
            }
            return (more, !nested)
        }
        if outermost && actionsPending.load(ordering: .acquiring) { runUpstreamActions() }
        return answer
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>, input i: Int) {
        let outermost = gate.withGate { nested -> Bool in
            switch completion {
            case .finished:
                let done = state.withLock { s -> Subscribers.Completion<Failure>? in
                    guard !s.terminal, s.slots[i].finish() else { return nil }
                    s.finishedCount &+= 1
                    guard s.finishedCount == s.slots.count else { return nil }
                    return s.end(with: .finished)
                }
                if let done { downstream.receive(completion: done) }
            case .failure:
                let failure = state.withLock { s -> Subscribers.Completion<Failure>? in
                    guard !s.terminal else { return nil }
                    _ = s.slots[i].finish()
                    if s.markAllForCancel() { actionsPending.store(true, ordering: .releasing) }
                    return s.end(with: completion)
                }
                if let failure { downstream.receive(completion: failure) }
            }
            return !nested
        }
        if outermost && actionsPending.load(ordering: .acquiring) { runUpstreamActions() }
    }

    /// Makes the upstream calls recorded in `state`, outside the gate.
    @inlinable
    func runUpstreamActions() {
        UVCombineCore.runUpstreamActions(state, actionsPending)
    }

    // MARK: Subscription

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        requestImpl(self, demand)
    }

    /// Passes `demand` to every input. Delivers nothing by itself: the next
    /// input value produces the next output, as in Combine.
    @inlinable
    func performRequest(_ demand: Subscribers.Demand) {
        let nested = gate.isHeldByCurrentThread
        state.withLock { s in
            guard !s.terminal else { return }
            s.demand += demand
            if s.owe(demand) { actionsPending.store(true, ordering: .releasing) }
        }
        if !nested && actionsPending.load(ordering: .acquiring) { runUpstreamActions() }
    }

    @inlinable
    func cancel() {
        cancelImpl(self)
    }

    @inlinable
    func performCancel() {
        let outermost = gate.withGate { nested -> Bool in
            state.withLock { s in
                guard !s.terminal else { return }
                s.terminal = true
                s.held.pending = nil
                if s.markAllForCancel() { actionsPending.store(true, ordering: .releasing) }
            }
            return !nested
        }
        if outermost && actionsPending.load(ordering: .acquiring) { runUpstreamActions() }
    }

    @usableFromInline var description: String { "CombineLatest" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}
