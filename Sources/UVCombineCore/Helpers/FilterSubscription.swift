import Synchronization

/// What to do with one upstream value in a filtering operator.
@usableFromInline
internal enum FilterStep<Failure: Error> {
    /// Republish it.
    case publish
    /// Drop it; one more value is requested upstream in its place, so the
    /// downstream's demand counts delivered values only.
    case drop
    /// Republish it, then cancel the upstream and finish (the last value of
    /// a range).
    case publishAndFinish
    /// Drop it, cancel the upstream and finish.
    case finish
    /// Cancel the upstream and fail (a closure threw).
    case fail(Failure)
}

/// The operator-specific part of an operator that republishes some of its
/// upstream's values unchanged (`prefix(while:)`, `drop(while:)`,
/// `removeDuplicates`, `output(in:)`): the decision per value and the small
/// state it needs. A struct whose closures are `let`, owned by one
/// ``FilterSubscription``.
@usableFromInline
internal protocol FilterLogic {
    associatedtype Input
    associatedtype State
    associatedtype UpstreamFailure: Error
    associatedtype Failure: Error

    /// What the subscription calls itself (Combine's name).
    static var name: String { get }

    /// Decides about one value. Runs outside the lock, one value at a time.
    func step(_ state: inout State, _ input: Input) -> FilterStep<Failure>

    /// The upstream's failure as this operator's failure.
    func failure(_ error: UpstreamFailure) -> Failure
}

/// The subscription behind the filtering operators.
///
/// Requests are forwarded to the upstream while subscribed; dropped values
/// are answered with `.max(1)`. Finishing early cancels the upstream first,
/// then completes the downstream; after that, and after `cancel()`, nothing
/// is delivered.
///
/// Threading: values arrive one at a time (the Subscriber contract); the
/// operator's state is read under the lock, the closure runs outside it and
/// the new state is written back. `request` and `cancel` may come from any
/// thread.
@usableFromInline
internal final class FilterSubscription<Logic: FilterLogic, Downstream: Subscriber>: Subscriber, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == Logic.Input, Downstream.Failure == Logic.Failure
{
    @usableFromInline typealias Input = Logic.Input
    @usableFromInline typealias Failure = Logic.UpstreamFailure

    @usableFromInline
    internal struct State {
        /// Checked per value instead of the existential beside it.
        @usableFromInline var subscribed = false
        @usableFromInline var done = false
        @usableFromInline var upstream: (any Subscription)?
        @usableFromInline var logic: Logic.State

        @inlinable
        init(logic: Logic.State) {
            self.logic = logic
        }
    }

    @usableFromInline let downstream: Downstream
    @usableFromInline let logic: Logic
    @usableFromInline let state: Mutex<UncheckedSendable<State>>

    @inlinable
    init(downstream: Downstream, logic: Logic, initial: Logic.State) {
        self.downstream = downstream
        self.logic = logic
        state = Mutex(UncheckedSendable(State(logic: initial)))
    }

    // MARK: Subscriber

    @inlinable
    func receive(subscription: any Subscription) {
        let accepted = state.withLock { s -> Bool in
            guard !s.value.subscribed, !s.value.done else { return false }
            s.value.subscribed = true
            s.value.upstream = subscription
            return true
        }
        if accepted {
            downstream.receive(subscription: self)
        } else {
            subscription.cancel()
        }
    }

    @inlinable
    func receive(_ input: Logic.Input) -> Subscribers.Demand {
        let current = state.withLock { s -> UncheckedSendable<Logic.State?> in
            UncheckedSendable(s.value.subscribed && !s.value.done ? s.value.logic : nil)
        }
        guard var logicState = current.value else { return .none }
        let step = logic.step(&logicState, input)
        // A stateless operator has nothing to write back.
        if MemoryLayout<Logic.State>.size != 0 {
            state.withLock { $0.value.logic = logicState }
        }
        switch step {
        case .publish:
            return downstream.receive(input)
        case .drop:
            return .max(1)
        case .publishAndFinish:
            _ = downstream.receive(input)
            finish(with: nil)
        case .finish:
            finish(with: nil)
        case .fail(let error):
            finish(with: error)
        }
        return .none
    }

    /// Ends the stream from inside: cancel upstream, then complete.
    @inlinable
    func finish(with error: Logic.Failure?) {
        let upstream = state.withLock { s -> UncheckedSendable<(any Subscription)?> in
            guard s.value.subscribed, !s.value.done else { return UncheckedSendable(nil) }
            s.value.done = true
            let upstream = s.value.upstream
            s.value.upstream = nil
            return UncheckedSendable(upstream)
        }
        guard let upstream = upstream.value else { return }
        upstream.cancel()
        if let error {
            downstream.receive(completion: .failure(error))
        } else {
            downstream.receive(completion: .finished)
        }
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Logic.UpstreamFailure>) {
        let active = state.withLock { s -> Bool in
            guard s.value.subscribed, !s.value.done else { return false }
            s.value.done = true
            s.value.upstream = nil
            return true
        }
        guard active else { return }
        switch completion {
        case .finished:
            downstream.receive(completion: .finished)
        case .failure(let error):
            downstream.receive(completion: .failure(logic.failure(error)))
        }
    }

    // MARK: Subscription

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let upstream = state.withLock { UncheckedSendable($0.value.upstream) }
        upstream.value?.request(demand)
    }

    @inlinable
    func cancel() {
        let upstream = state.withLock { s -> UncheckedSendable<(any Subscription)?> in
            s.value.done = true
            let upstream = s.value.upstream
            s.value.upstream = nil
            return UncheckedSendable(upstream)
        }
        upstream.value?.cancel()
    }

    @usableFromInline var description: String { Logic.name }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: ["downstream": downstream]) }
    @usableFromInline var playgroundDescription: Any { description }
}
