import Synchronization

/// What one upstream value did to a reduction.
@usableFromInline
internal enum ReductionStep<Failure: Error> {
    /// Keep consuming.
    case more
    /// The answer is known: cancel the upstream and publish the result.
    case done
    /// A closure threw: cancel the upstream and fail with the error.
    case fail(Failure)
}

/// The operator-specific part of a reducing operator (`count`, `reduce`,
/// `first(where:)`, `contains`, `min`, `collect`, ...): how a value changes
/// the accumulator and what is published at the end. A struct whose
/// closures are `let`, owned by one ``ReducerSubscription``.
@usableFromInline
internal protocol Reduction {
    associatedtype Input
    associatedtype Accumulator
    associatedtype Output
    associatedtype UpstreamFailure: Error
    associatedtype Failure: Error

    /// What the subscription calls itself (Combine's name).
    static var name: String { get }

    /// Consumes one value. Runs outside the lock, one value at a time.
    func reduce(_ accumulator: inout Accumulator, _ input: Input) -> ReductionStep<Failure>

    /// The value published when the reduction ends; `nil` publishes only
    /// the completion.
    func result(_ accumulator: Accumulator) -> Output?

    /// The upstream's failure as this operator's failure.
    func failure(_ error: UpstreamFailure) -> Failure
}

/// The subscription behind every reducing operator, with Combine's
/// behaviour:
///
/// - it requests `.unlimited` from the upstream right after handing itself
///   to the downstream;
/// - a value may settle the answer early (`first`, `contains`,
///   `allSatisfy`): the upstream is cancelled at once;
/// - the result (or, when there is none, the bare `.finished`) waits for
///   the downstream's first request, then the completion follows; demand
///   beyond one changes nothing;
/// - failures, from upstream or thrown, are delivered at once, without
///   demand;
/// - after `cancel()` nothing is delivered.
///
/// Threading: values arrive one at a time (the Subscriber contract); the
/// accumulator is moved out of the lock while the closure runs (so an
/// array accumulator stays uniquely referenced and is appended to in
/// place), and moved back. `request` and `cancel` may come from any thread.
@usableFromInline
internal final class ReducerSubscription<Logic: Reduction, Downstream: Subscriber>: Subscriber, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == Logic.Output, Downstream.Failure == Logic.Failure
{
    @usableFromInline typealias Input = Logic.Input
    @usableFromInline typealias Failure = Logic.UpstreamFailure

    /// Where the reduction stands. Checked per value instead of the
    /// existential beside it, so a value copies no `any Subscription`.
    @usableFromInline
    internal enum Phase: UInt8 {
        case awaitingSubscription
        /// Values flow; the upstream subscription is held.
        case consuming
        /// The answer is known (upstream finished or cancelled by us), the
        /// downstream has not asked for it yet.
        case awaitingDemand
        /// Delivered, failed or cancelled.
        case terminal
    }

    @usableFromInline
    internal struct State {
        @usableFromInline var phase: Phase = .awaitingSubscription
        @usableFromInline var upstream: (any Subscription)?
        /// `nil` only while a value is being reduced or after the end.
        @usableFromInline var accumulator: Logic.Accumulator?
        /// The downstream has requested (any amount).
        @usableFromInline var requested = false

        @inlinable
        init(accumulator: Logic.Accumulator) {
            self.accumulator = accumulator
        }
    }

    /// What to do once the lock is released.
    @usableFromInline
    internal enum Action {
        case none
        case deliver(Logic.Accumulator)
        case cancelUpstream((any Subscription)?)
        case cancelAndDeliver((any Subscription)?, Logic.Accumulator)
        case fail(Logic.UpstreamFailure)
    }

    @usableFromInline let downstream: Downstream
    @usableFromInline let logic: Logic
    @usableFromInline let state: Mutex<UncheckedSendable<State>>

    @inlinable
    init(downstream: Downstream, logic: Logic, initial: Logic.Accumulator) {
        self.downstream = downstream
        self.logic = logic
        state = Mutex(UncheckedSendable(State(accumulator: initial)))
    }

    // MARK: Subscriber

    @inlinable
    func receive(subscription: any Subscription) {
        let accepted = state.withLock { s -> Bool in
            guard s.value.phase == .awaitingSubscription else { return false }
            s.value.phase = .consuming
            s.value.upstream = subscription
            return true
        }
        guard accepted else {
            subscription.cancel()
            return
        }
        downstream.receive(subscription: self)
        // The downstream may have cancelled from inside receive(subscription:).
        if state.withLock({ $0.value.phase == .consuming }) {
            subscription.request(.unlimited)
        }
    }

    @inlinable
    func receive(_ input: Logic.Input) -> Subscribers.Demand {
        let taken = state.withLock { s -> UncheckedSendable<Logic.Accumulator?> in
            guard s.value.phase == .consuming else { return UncheckedSendable(nil) }
            return UncheckedSendable(s.value.accumulator.take())
        }
        guard var accumulator = taken.value else { return .none }
        switch logic.reduce(&accumulator, input) {
        case .more:
            state.withLock { s in
                if s.value.phase == .consuming { s.value.accumulator = accumulator }
            }
        case .done:
            let action = state.withLock { s -> UncheckedSendable<Action> in
                guard s.value.phase == .consuming else { return UncheckedSendable(.none) }
                let upstream = s.value.upstream
                s.value.upstream = nil
                if s.value.requested {
                    s.value.phase = .terminal
                    return UncheckedSendable(.cancelAndDeliver(upstream, accumulator))
                }
                s.value.phase = .awaitingDemand
                s.value.accumulator = accumulator
                return UncheckedSendable(.cancelUpstream(upstream))
            }
            perform(action.value)
        case .fail(let error):
            let upstream = state.withLock { s -> UncheckedSendable<(any Subscription)?> in
                guard s.value.phase == .consuming else { return UncheckedSendable(nil) }
                s.value.phase = .terminal
                let upstream = s.value.upstream
                s.value.upstream = nil
                return UncheckedSendable(upstream)
            }
            if let upstream = upstream.value {
                upstream.cancel()
                downstream.receive(completion: .failure(error))
            }
        }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Logic.UpstreamFailure>) {
        let action = state.withLock { s -> UncheckedSendable<Action> in
            guard s.value.phase == .consuming else { return UncheckedSendable(.none) }
            s.value.upstream = nil
            if case .failure(let error) = completion {
                s.value.phase = .terminal
                s.value.accumulator = nil
                return UncheckedSendable(.fail(error))
            }
            if s.value.requested, let accumulator = s.value.accumulator.take() {
                s.value.phase = .terminal
                return UncheckedSendable(.deliver(accumulator))
            }
            s.value.phase = .awaitingDemand
            return UncheckedSendable(.none)
        }
        perform(action.value)
    }

    // MARK: Subscription

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let action = state.withLock { s -> UncheckedSendable<Action> in
            switch s.value.phase {
            case .awaitingSubscription, .consuming:
                s.value.requested = true
                return UncheckedSendable(.none)
            case .awaitingDemand:
                s.value.phase = .terminal
                guard let accumulator = s.value.accumulator.take() else { return UncheckedSendable(.none) }
                return UncheckedSendable(.deliver(accumulator))
            case .terminal:
                return UncheckedSendable(.none)
            }
        }
        perform(action.value)
    }

    @inlinable
    func cancel() {
        let upstream = state.withLock { s -> UncheckedSendable<(any Subscription)?> in
            let upstream = s.value.upstream
            s.value.upstream = nil
            s.value.phase = .terminal
            s.value.accumulator = nil
            return UncheckedSendable(upstream)
        }
        upstream.value?.cancel()
    }

    // MARK: Delivery

    @inlinable
    func perform(_ action: Action) {
        switch action {
        case .none:
            break
        case .deliver(let accumulator):
            deliver(accumulator)
        case .cancelUpstream(let upstream):
            upstream?.cancel()
        case .cancelAndDeliver(let upstream, let accumulator):
            upstream?.cancel()
            deliver(accumulator)
        case .fail(let error):
            downstream.receive(completion: .failure(logic.failure(error)))
        }
    }

    /// Publishes the result, if there is one, then finishes.
    @inlinable
    func deliver(_ accumulator: Logic.Accumulator) {
        if let result = logic.result(accumulator) {
            _ = downstream.receive(result)
        }
        downstream.receive(completion: .finished)
    }

    @usableFromInline var description: String { Logic.name }
    @usableFromInline var customMirror: Mirror {
        let accumulator = state.withLock { UncheckedSendable($0.value.accumulator) }.value
        return Mirror(self, children: ["downstream": downstream, "result": accumulator as Any])
    }
    @usableFromInline var playgroundDescription: Any { description }
}
