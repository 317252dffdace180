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

/// How a ``FilterSubscription`` treats events that come before its
/// upstream subscription, after completion or after a cancel. Combine is not
/// uniform here; each operator follows the rule Combine's does.
@usableFromInline
internal enum FilterRules {
    /// `removeDuplicates`, `prefix(while:)` and their `try` forms: a value,
    /// completion or request before the subscription is a contract violation
    /// (trap), as is `request(.none)`; a cancel before the subscription
    /// cancels the subscription when it arrives.
    case strict
    /// `drop(while:)`, `tryDrop(while:)`: values and completion count only
    /// while subscribed; a request or cancel before the subscription is
    /// ignored (the subscription that arrives later is kept); `request(.none)`
    /// traps.
    case gated
    /// `output(in:)`, `prefix(_:)`: values go through the selection also
    /// before the subscription and after completion; completion, requests
    /// and cancel count only while subscribed; `request(.none)` is accepted.
    case forwarding
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

    /// The operator's rules for events out of order (Combine's).
    static var rules: FilterRules { get }

    /// The subscription's `customMirror` children, as Combine's.
    func mirrorChildren(downstream: Any, state: State) -> [Mirror.Child]

    /// Decides about one value. Runs outside the lock, one value at a time.
    func step(_ state: inout State, _ input: Input) -> FilterStep<Failure>

    /// The upstream's failure as this operator's failure.
    func failure(_ error: UpstreamFailure) -> Failure
}

/// The subscription behind the filtering operators.
///
/// Requests are forwarded to the upstream while subscribed; dropped values
/// are answered with `.max(1)`. Finishing early cancels the upstream first,
/// then completes the downstream. The upstream subscription is released on
/// completion and cancel. Events out of order follow `Logic.rules`.
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
    internal enum Phase {
        case awaitingSubscription
        case subscribed
        case terminal
    }

    @usableFromInline
    internal struct State {
        @usableFromInline var phase = Phase.awaitingSubscription
        /// Set while `phase == .subscribed`.
        @usableFromInline var upstream: (any Subscription)?
        @usableFromInline var logic: Logic.State

        @inlinable
        init(logic: Logic.State) {
            self.logic = logic
        }
    }

    @usableFromInline let downstream: Downstream
    @usableFromInline let logic: Logic
    @usableFromInline let state: Locked<State>

    @inlinable
    init(downstream: Downstream, logic: Logic, initial: Logic.State) {
        self.downstream = downstream
        self.logic = logic
        state = Locked(State(logic: initial))
    }

    // MARK: Subscriber

    @inlinable
    func receive(subscription: any Subscription) {
        let accepted = state.withLock { s -> Bool in
            guard case .awaitingSubscription = s.phase else { return false }
            s.phase = .subscribed
            s.upstream = subscription
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
        let current = state.withLock { s -> (Phase, Logic.State) in
            (s.phase, s.logic)
        }
        var logicState = current.1
        switch (Logic.rules, current.0) {
        case (.strict, .awaitingSubscription):
            violation("\(Logic.name) received a value before its subscription")
        case (.strict, .terminal), (.gated, .awaitingSubscription), (.gated, .terminal):
            return .none
        case (_, .subscribed), (.forwarding, _):
            break
        }
        let step = logic.step(&logicState, input)
        // A stateless operator has nothing to write back.
        if MemoryLayout<Logic.State>.size != 0 {
            state.withLock { $0.logic = logicState }
        }
        switch step {
        case .publish:
            return downstream.receive(input)
        case .drop:
            return .max(1)
        case .publishAndFinish:
            let demand = downstream.receive(input)
            // Outside a live subscription (Output's forwarding rule) the
            // value is all there is to do; the downstream's answer stands.
            if !finish(with: nil) { return demand }
        case .finish:
            finish(with: nil)
        case .fail(let error):
            finish(with: error)
        }
        return .none
    }

    /// Ends the stream from inside: cancel upstream, then complete. Only
    /// while subscribed; returns whether it did.
    @inlinable @discardableResult
    func finish(with error: Logic.Failure?) -> Bool {
        let upstream = state.withLock { s -> (any Subscription)? in
            guard case .subscribed = s.phase else { return nil }
            s.phase = .terminal
            let upstream = s.upstream
            s.upstream = nil
            return upstream
        }
        guard let upstream = upstream else { return false }
        upstream.cancel()
        if let error {
            downstream.receive(completion: .failure(error))
        } else {
            downstream.receive(completion: .finished)
        }
        return true
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Logic.UpstreamFailure>) {
        let phase = state.withLock { s -> Phase in
            let phase = s.phase
            if case .subscribed = phase {
                s.phase = .terminal
                s.upstream = nil
            }
            return phase
        }
        switch phase {
        case .subscribed:
            break
        case .awaitingSubscription:
            if case .strict = Logic.rules {
                violation("\(Logic.name) received completion before its subscription")
            }
            return
        case .terminal:
            return
        }
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
        let current = state.withLock { ($0.phase, $0.upstream) }
        switch Logic.rules {
        case .strict:
            demand.assertNonZero()
            if case .awaitingSubscription = current.0 {
                violation("\(Logic.name) received a request before sending its subscription")
            }
        case .gated:
            demand.assertNonZero()
        case .forwarding:
            break
        }
        current.1?.request(demand)
    }

    @inlinable
    func cancel() {
        let upstream = state.withLock { s -> (any Subscription)? in
            switch s.phase {
            case .subscribed:
                s.phase = .terminal
                let upstream = s.upstream
                s.upstream = nil
                return upstream
            case .awaitingSubscription:
                // Only the strict operators remember such a cancel (and
                // cancel the subscription when it arrives), as in Combine.
                if case .strict = Logic.rules { s.phase = .terminal }
                return nil
            case .terminal:
                return nil
            }
        }
        upstream?.cancel()
    }

    @usableFromInline var description: String { Logic.name }
    @usableFromInline var customMirror: Mirror {
        let logicState = state.withLock { $0.logic }
        return Mirror(self, children: logic.mirrorChildren(downstream: downstream, state: logicState))
    }
    @usableFromInline var playgroundDescription: Any { description }
}
