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

    /// `collect()` reflects only the number of collected elements (as
    /// Combine's `Collect` does); every other reduction returns `nil` and
    /// reflects Combine's `downstream`, `result`, `initial`, `status`.
    func reflectedCount(_ accumulator: Accumulator?) -> Int?
}

extension Reduction {
    @inlinable
    func reflectedCount(_ accumulator: Accumulator?) -> Int? { nil }
}

/// The subscription behind every reducing operator, with Combine's
/// behaviour:
///
/// - it hands itself to the downstream, then requests `.unlimited` from
///   the upstream (also when the downstream cancelled meanwhile, as
///   Combine does);
/// - a `cancel()` that comes before the upstream's subscription is
///   ignored, as in Combine: the subscription, when it arrives, is still
///   accepted and asked for `.unlimited`;
/// - a value may settle the answer early (`first`, `contains`,
///   `allSatisfy`): the upstream is cancelled at once;
/// - the result (or, when there is none, the bare `.finished`) waits for
///   the downstream's first request, then the completion follows; demand
///   beyond one changes nothing;
/// - failures, from upstream or thrown, are delivered at once, without
///   demand;
/// - values and completions before the subscription, after the end or
///   after `cancel()` are ignored; a second subscription is cancelled;
/// - on completion and on cancel it lets go of the downstream and of the
///   upstream subscription (Combine keeps its downstream after a cancel;
///   releasing it breaks the subscriber ↔ subscription cycle).
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
        /// Released (set to `nil`) on completion and on cancel.
        @usableFromInline var downstream: Downstream?
        /// `nil` only while a value is being reduced or after the end.
        @usableFromInline var accumulator: Logic.Accumulator?
        /// The downstream has requested (any amount).
        @usableFromInline var requested = false

        @inlinable
        init(downstream: Downstream, accumulator: Logic.Accumulator) {
            self.downstream = downstream
            self.accumulator = accumulator
        }
    }

    /// What to do once the lock is released.
    @usableFromInline
    internal enum Action {
        case none
        case deliver(Downstream, Logic.Accumulator)
        case cancelUpstream((any Subscription)?)
        case cancelAndDeliver((any Subscription)?, Downstream, Logic.Accumulator)
        case fail(Downstream, Logic.Failure)
    }

    @usableFromInline let logic: Logic
    /// The starting accumulator, kept for `customMirror` (`initial`).
    @usableFromInline let initial: Logic.Accumulator
    @usableFromInline let state: Locked<State>

    @inlinable
    init(downstream: Downstream, logic: Logic, initial: Logic.Accumulator) {
        self.logic = logic
        self.initial = initial
        state = Locked(State(downstream: downstream, accumulator: initial))
    }

    // MARK: Subscriber

    @inlinable
    func receive(subscription: any Subscription) {
        let accepted = state.withLock { s -> Downstream? in
            guard s.phase == .awaitingSubscription else { return nil }
            s.phase = .consuming
            s.upstream = subscription
            return s.downstream
        }
        guard let downstream = accepted else {
            subscription.cancel()
            return
        }
        downstream.receive(subscription: self)
        // Combine requests even if the downstream cancelled from inside
        // receive(subscription:); a cancelled upstream ignores it.
        subscription.request(.unlimited)
    }

    @inlinable
    func receive(_ input: Logic.Input) -> Subscribers.Demand {
        let taken = state.withLock { s -> Logic.Accumulator? in
            guard s.phase == .consuming else { return nil }
            return s.accumulator.take()
        }
        guard var accumulator = taken else { return .none }
        switch logic.reduce(&accumulator, input) {
        case .more:
            state.withLock { s in
                if s.phase == .consuming { s.accumulator = accumulator }
            }
        case .done:
            let action = state.withLock { s -> Action in
                guard s.phase == .consuming else { return .none }
                let upstream = s.upstream
                s.upstream = nil
                if s.requested, let downstream = s.downstream.take() {
                    s.phase = .terminal
                    return .cancelAndDeliver(upstream, downstream, accumulator)
                }
                s.phase = .awaitingDemand
                s.accumulator = accumulator
                return .cancelUpstream(upstream)
            }
            perform(action)
        case .fail(let error):
            let action = state.withLock { s -> ((any Subscription)?, Downstream?) in
                guard s.phase == .consuming else { return (nil, nil) }
                s.phase = .terminal
                let upstream = s.upstream
                s.upstream = nil
                return (upstream, s.downstream.take())
            }
            let (upstream, downstream) = action
            upstream?.cancel()
            downstream?.receive(completion: .failure(error))
        }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Logic.UpstreamFailure>) {
        let action = state.withLock { s -> Action in
            guard s.phase == .consuming else { return .none }
            s.upstream = nil
            if case .failure(let error) = completion {
                s.phase = .terminal
                s.accumulator = nil
                guard let downstream = s.downstream.take() else { return .none }
                return .fail(downstream, logic.failure(error))
            }
            if s.requested, let accumulator = s.accumulator.take(),
               let downstream = s.downstream.take()
            {
                s.phase = .terminal
                return .deliver(downstream, accumulator)
            }
            s.phase = .awaitingDemand
            return .none
        }
        perform(action)
    }

    // MARK: Subscription

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let action = state.withLock { s -> Action in
            switch s.phase {
            case .awaitingSubscription, .consuming:
                s.requested = true
                return .none
            case .awaitingDemand:
                s.phase = .terminal
                guard let accumulator = s.accumulator.take(),
                      let downstream = s.downstream.take()
                else { return .none }
                return .deliver(downstream, accumulator)
            case .terminal:
                return .none
            }
        }
        perform(action)
    }

    @inlinable
    func cancel() {
        let released = state.withLock { s -> ((any Subscription)?, Downstream?) in
            // Combine ignores a cancel that comes before the subscription.
            guard s.phase != .awaitingSubscription else { return (nil, nil) }
            let upstream = s.upstream
            s.upstream = nil
            s.phase = .terminal
            s.accumulator = nil
            return (upstream, s.downstream.take())
        }
        // The downstream is released here, outside the lock.
        released.0?.cancel()
    }

    // MARK: Delivery

    @inlinable
    func perform(_ action: Action) {
        switch action {
        case .none:
            break
        case .deliver(let downstream, let accumulator):
            deliver(accumulator, to: downstream)
        case .cancelUpstream(let upstream):
            upstream?.cancel()
        case .cancelAndDeliver(let upstream, let downstream, let accumulator):
            upstream?.cancel()
            deliver(accumulator, to: downstream)
        case .fail(let downstream, let error):
            downstream.receive(completion: .failure(error))
        }
    }

    /// Publishes the result, if there is one, then finishes.
    @inlinable
    func deliver(_ accumulator: Logic.Accumulator, to downstream: Downstream) {
        if let result = logic.result(accumulator) {
            _ = downstream.receive(result)
        }
        downstream.receive(completion: .finished)
    }

    @usableFromInline var description: String { Logic.name }

    /// Combine's children: `downstream`, `result`, `initial`, `status`
    /// (`Collect`: only `count`).
    @usableFromInline var customMirror: Mirror {
        let snapshot = state.withLock { s in
            (s.downstream, s.accumulator, s.phase, s.upstream)
        }
        let (downstream, accumulator, phase, upstream) = snapshot
        if let count = logic.reflectedCount(accumulator) {
            return Mirror(self, children: ["count": count])
        }
        let status: String
        switch phase {
        case .awaitingSubscription: status = "awaitingSubscription"
        case .consuming, .awaitingDemand:
            status = upstream.map { "subscribed(\($0))" } ?? "terminal"
        case .terminal: status = "terminal"
        }
        let children: KeyValuePairs<String, Any> = [
            "downstream": downstream.map { $0 as Any } ?? (downstream as Any),
            "result": accumulator.flatMap { logic.result($0) } as Any,
            "initial": logic.result(initial) as Any,
            "status": status,
        ]
        return Mirror(self, children: children)
    }
    @usableFromInline var playgroundDescription: Any { description }
}
