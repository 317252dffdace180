import Synchronization

/// The subscription behind `Zip`, `Zip3` and `Zip4`.
///
/// `Queues` holds one FIFO queue (a ``RingBuffer``) per input; each input's
/// subscriber appends to its queue with a non-capturing closure, and `take`
/// pops one value from every queue once all have one. Both closures are
/// formed where the concrete types are known, so the value path runs
/// specialised code, and the ring buffers allocate nothing once grown.
///
/// ## Subscription order (Combine's)
///
/// The downstream receives this subscription only once every input has
/// sent its subscription, from inside the last input's
/// `receive(subscription:)`; demand it requests there reaches every input.
/// An input's subscription asks it for nothing by itself.
///
/// ## Demand and the bound on the queues (Combine's scheme)
///
/// Every request from the downstream is passed to every input, and so is
/// demand the downstream returns from `receive(_:)`: the input whose value
/// completed the tuple gets it (with what the downstream requested while
/// receiving the tuple) as its answer, the others as a request. Each input is therefore
/// asked for exactly as many values as the downstream asked for tuples, and
/// its queue never holds more than the downstream's outstanding demand
/// (requested and not yet delivered). With `.unlimited` demand a faster
/// input's values wait in its queue for their partners, as in Combine; the
/// queue then holds the difference between the inputs' progress.
///
/// Like Combine's zip, it keeps no count of the downstream's demand: a tuple
/// goes out as soon as every queue has a value. With inputs that honour
/// their demand this never exceeds what was requested; values an input
/// sends before its subscription or beyond its demand are zipped and
/// forwarded as they come, also before the downstream has its subscription.
///
/// ## Completion
///
/// Finishes as soon as an input has finished and its queue is empty (no
/// further tuple is possible), cancelling the other inputs. The first
/// failure cancels the other inputs and fails the downstream. A completion
/// that comes before the downstream has its subscription waits for it: once
/// the last input has sent its subscription, the downstream gets the
/// subscription, then the completion. `cancel()` cancels every input.
///
/// ## Threading
///
/// Inputs may deliver on any threads; deliveries are serialised by a
/// ``DownstreamGate`` and `cancel()` waits for a tuple in flight. Upstream
/// calls are made outside the gate (see `DownstreamGate`).
@usableFromInline
internal final class ZipInner<Queues, Downstream: Subscriber>: CombiningInputEngine,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
    @usableFromInline typealias Output = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure
    @usableFromInline typealias Store = Queues

    @usableFromInline
    internal struct State: UpstreamSlotOwner {
        @usableFromInline var slots: ContiguousArray<UpstreamSlot>
        @usableFromInline var queues: Queues
        /// Inputs that have finished; the finish check is skipped while 0.
        @usableFromInline var finishedCount = 0
        @usableFromInline var terminal = false
        /// Bit `i` is set once input `i` has sent a subscription (zip has at
        /// most four inputs).
        @usableFromInline var subscribedInputs: UInt8 = 0
        /// Every input has sent a subscription; the downstream's is on its way.
        @usableFromInline var handingOver = false
        @usableFromInline var held = HeldCompletion<Failure>()
        /// Requested by the downstream from inside a delivery; the
        /// delivery passes it on when the downstream returns.
        @usableFromInline var nestedDemand: Subscribers.Demand = .none

        @inlinable
        init(count: Int, queues: Queues) {
            slots = ContiguousArray(repeating: UpstreamSlot(), count: count)
            self.queues = queues
        }

        /// Ends the zip with `completion`: returned to deliver now, or kept
        /// until the downstream has its subscription.
        @inlinable
        mutating func end(with completion: Subscribers.Completion<Failure>) -> Subscribers.Completion<Failure>? {
            terminal = true
            return held.deliverable(completion)
        }
    }

    /// What the delivery loop does next, decided under the lock.
    @usableFromInline
    internal enum Step {
        case deliver(Output)
        case finish
        case stop
    }

    @usableFromInline let downstream: Downstream
    /// Pops one value from every queue, or returns nil if one is empty.
    @usableFromInline let take: (inout Queues) -> Output?
    /// Whether input `index`'s queue is empty.
    @usableFromInline let isEmpty: (Queues, Int) -> Bool
    @usableFromInline let gate = DownstreamGate()
    /// Upstream requests or cancels are recorded in `state`.
    @usableFromInline let actionsPending = Atomic<Bool>(false)
    @usableFromInline let state: Locked<State>
    /// `request` and `cancel` arrive through `any Subscription`, where only
    /// the unspecialised bodies are reachable; these non-capturing closures,
    /// formed where the types are known, run the specialised ones.
    @usableFromInline let requestImpl: (ZipInner, Subscribers.Demand) -> Void
    @usableFromInline let cancelImpl: (ZipInner) -> Void

    @inlinable
    init(downstream: Downstream, count: Int, queues: Queues,
         take: @escaping (inout Queues) -> Output?, isEmpty: @escaping (Queues, Int) -> Bool) {
        assert(count <= 8, "ZipInner keeps one bit per input in a UInt8")
        self.downstream = downstream
        self.take = take
        self.isEmpty = isEmpty
        state = Locked(State(count: count, queues: queues))
        requestImpl = { $0.performRequest($1) }
        cancelImpl = { $0.performCancel() }
    }

    /// The subscriber to hand input `index`; `store` appends its value to
    /// its queue.
    @inlinable
    func side<Input>(_ index: Int, store: @escaping (inout Queues, Input) -> Void) -> CombiningInputSide<ZipInner, Input> {
        CombiningInputSide(inner: self, index: index, store: store)
    }

    // MARK: Inputs

    /// Keeps the first subscription of a live input and asks it for
    /// nothing; once every input has sent one, hands the downstream its
    /// subscription (then a completion that came before). A second
    /// subscription, or one after the input or the zip ended, is cancelled.
    @inlinable
    func receive(subscription: any Subscription, input i: Int) {
        let (accepted, handOver) = state.withLock { s -> (Bool, Bool) in
            let bit = UInt8(truncatingIfNeeded: 1 << i)
            guard s.subscribedInputs & bit == 0 else { return (false, false) }
            s.subscribedInputs |= bit
            var accepted = false
            if !s.terminal && s.slots[i].phase == .awaitingSubscription {
                s.slots[i].phase = .active
                s.slots[i].subscription = subscription
                accepted = true
            }
            let all = UInt8(truncatingIfNeeded: (1 << s.slots.count) - 1)
            guard !s.handingOver && s.subscribedInputs == all else { return (accepted, false) }
            s.handingOver = true
            return (accepted, true)
        }
        guard handOver else {
            if !accepted { subscription.cancel() }
            return
        }
        let outermost = deliverSubscription(
            self, to: downstream, gate: gate,
            delivered: { state.withLock { s in
                // What the downstream requested while receiving its subscription.
                let nested = s.nestedDemand
                s.nestedDemand = .none
                if nested.rawValue > 0 && !s.terminal && s.owe(nested) {
                    actionsPending.store(true, ordering: .releasing)
                }
                return s.held.subscriptionDelivered()
            } },
            afterSubscription: { if !accepted { subscription.cancel() } })
        if outermost && actionsPending.load(ordering: .acquiring) { runUpstreamActions() }
    }

    /// Answers with the demand the downstream returned for the tuple this
    /// value completed; the other inputs are asked for it by request.
    @inlinable
    func receive<Input>(_ value: Input, input i: Int, store: (inout Queues, Input) -> Void) -> Subscribers.Demand {
        let (outermost, answer) = gate.withGate { nested -> (Bool, Subscribers.Demand) in
            let step = state.withLock { s -> Step in
                guard !s.terminal else { return .stop }
                store(&s.queues, value)
                // A nested value waits for the delivery loop already running
                // on this thread, which looks again after each tuple.
                return nested ? .stop : lockedNextStep(&s)
            }
            return nested ? (false, .none) : (true, deliver(from: step, sender: i))
        }
        if outermost && actionsPending.load(ordering: .acquiring) { runUpstreamActions() }
        return answer
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>, input i: Int) {
        let outermost = gate.withGate { nested -> Bool in
            switch completion {
            case .finished:
                let step = state.withLock { s -> Step in
                    guard !s.terminal, s.slots[i].finish() else { return .stop }
                    s.finishedCount &+= 1
                    // Nested: the delivery loop running on this thread checks
                    // for the end after its current tuple.
                    return nested ? .stop : lockedNextStep(&s)
                }
                if !nested { _ = deliver(from: step, sender: nil) }
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

    // MARK: Delivery (holding the gate, outermost frame)

    /// Delivers tuples while every queue has a value, then finishes if an
    /// input has finished with an empty queue. Returns the demand for
    /// `sender` (the input whose value completed the first tuple): what the
    /// downstream returned for that tuple and requested while receiving it,
    /// which the other inputs are asked for. Demand for later tuples (from
    /// values sent while delivering) goes to every input.
    @inlinable
    func deliver(from first: Step, sender: Int?) -> Subscribers.Demand {
        var step = first
        var answer = Subscribers.Demand.none
        var sender = sender
        while true {
            switch step {
            case .deliver(let output):
                let more = downstream.receive(output)
                step = state.withLock { s -> Step in
                    let total = more + s.nestedDemand
                    s.nestedDemand = .none
                    if total.rawValue > 0 && !s.terminal {
                        if sender != nil { answer = total }
                        if s.owe(total, skipping: sender ?? -1) {
                            actionsPending.store(true, ordering: .releasing)
                        }
                    }
                    sender = nil
                    return lockedNextStep(&s)
                }
            case .finish:
                downstream.receive(completion: .finished)
                return answer
            case .stop:
                return answer
            }
        }
    }

    @inlinable
    func lockedNextStep(_ s: inout State) -> Step {
        if s.terminal { return .stop }
        if let output = take(&s.queues) { return .deliver(output) }
        guard s.finishedCount > 0 else { return .stop }
        for i in s.slots.indices where s.slots[i].phase == .finished && isEmpty(s.queues, i) {
            if s.markAllForCancel() { actionsPending.store(true, ordering: .releasing) }
            return s.end(with: .finished) == nil ? .stop : .finish
        }
        return .stop
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

    /// Passes `demand` to every input; from inside a delivery, it waits
    /// for the delivery to pass it on. Delivers nothing by itself: tuples
    /// never wait for demand.
    @inlinable
    func performRequest(_ demand: Subscribers.Demand) {
        let nested = gate.isHeldByCurrentThread
        state.withLock { s in
            guard !s.terminal else { return }
            if nested {
                s.nestedDemand += demand
            } else if s.owe(demand) {
                actionsPending.store(true, ordering: .releasing)
            }
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

    @usableFromInline var description: String { "Zip" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}
