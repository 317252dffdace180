/// What `catch` and `tryCatch` differ in, for the one subscription behind
/// both (``CatchInner``): the name they report, how the handler is called
/// and what the downstream's failure type is. `Publishers.Catch` and
/// `Publishers.TryCatch` conform; everything here is static, so a
/// specialised ``CatchInner`` costs nothing for the indirection.
///
/// Why a protocol on the publishers and not a typed-throws handler stored in
/// the inner: `catch`'s public `handler` does not throw, and converting it
/// to a `throws(NewPublisher.Failure)` function type would wrap it in a
/// thunk (an allocation per subscription); here each publisher calls its
/// own handler as it is.
@usableFromInline
internal protocol CatchOperator<Upstream, NewPublisher>: Publisher
    where Upstream.Output == Output, NewPublisher.Output == Output
{
    associatedtype Upstream: Publisher
    associatedtype NewPublisher: Publisher
    /// The handler as the publisher stores it.
    associatedtype Handler

    /// The operator's name, for traps, `description` and mirrors.
    static var operatorName: StaticString { get }

    /// The publisher replacing the failed upstream, or the error the
    /// handler threw (`Never` for `catch`).
    static func replacement(
        for error: Upstream.Failure, from handler: Handler
    ) throws(Failure) -> NewPublisher

    /// The replacement's failure as the downstream's.
    static func downstreamFailure(_ error: NewPublisher.Failure) -> Failure
}

/// One subscription for `catch` and `tryCatch`: first to the upstream,
/// then, after a failure, to the handler's publisher. The downstream sees
/// one subscription, named `Catch` or `TryCatch`, throughout.
///
/// Threading: the handler runs on the thread the upstream fails on;
/// `request` and `cancel` may come from any thread.
@usableFromInline
internal final class CatchInner<Operator: CatchOperator, Downstream: Subscriber>: Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == Operator.Output, Downstream.Failure == Operator.Failure
{
    @usableFromInline typealias Output = Operator.Output
    @usableFromInline typealias Upstream = Operator.Upstream
    @usableFromInline typealias NewPublisher = Operator.NewPublisher

    /// Where the values come from. A trivial enum: checking it on the
    /// per-value path copies nothing.
    @usableFromInline
    internal enum Phase: UInt8 {
        case awaitingUpstream
        case upstream
        /// The upstream failed; the replacement is being subscribed.
        case awaitingReplacement
        case replacement
        case terminal
    }

    @usableFromInline
    internal struct State {
        @usableFromInline var phase: Phase = .awaitingUpstream
        /// The upstream's subscription, then the replacement's.
        @usableFromInline var subscription: (any Subscription)?
        /// Requested by the downstream and not yet delivered by the
        /// upstream; handed to the replacement.
        @usableFromInline var demand: Subscribers.Demand = .none
        @inlinable init() {}
    }

    @usableFromInline let downstream: Downstream
    @usableFromInline let handler: Operator.Handler
    @usableFromInline let state = Locked(State())

    @inlinable
    init(downstream: Downstream, handler: Operator.Handler) {
        self.downstream = downstream
        self.handler = handler
    }

    @inlinable var upstreamSide: UpstreamSide { UpstreamSide(inner: self) }

    // MARK: Upstream side
    //
    // Combine's rules, which this follows: the upstream's values are
    // forwarded in every phase but must be within the demand requested
    // (a value beyond it traps, also before the subscription); a
    // failure from an upstream that already failed (or has not sent its
    // subscription) traps; `.finished` out of turn is ignored. A cancel
    // while the replacement is being subscribed is ignored: the
    // replacement still gets the demand and its completion is forwarded.

    @inlinable
    func receiveUpstream(subscription: any Subscription) {
        let accepted = state.withLock { s -> Bool in
            guard s.phase == .awaitingUpstream else { return false }
            s.phase = .upstream
            s.subscription = subscription
            return true
        }
        if accepted {
            downstream.receive(subscription: self)
        } else {
            subscription.cancel()
        }
    }

    @inlinable
    func receiveUpstream(_ input: Output) -> Subscribers.Demand {
        let withinDemand = state.withLock { s -> Bool in
            if s.demand.isUnlimited { return true }
            guard s.demand.rawValue > 0 else { return false }
            s.demand = Subscribers.Demand(rawValue: s.demand.rawValue - 1)
            return true
        }
        if !withinDemand { Self.valueBeyondDemand() }
        let more = downstream.receive(input)
        if more != .none {
            state.withLock { $0.demand += more }
        }
        return more
    }

    /// The trap for a value beyond the demand, out of line: the message is
    /// built from the operator's name, and building it inline cost the
    /// value path a few instructions (callgrind).
    @usableFromInline @inline(never)
    static func valueBeyondDemand() -> Never {
        violation("\(Operator.operatorName) received a value beyond the demand requested")
    }

    @inlinable
    func receiveUpstream(completion: Subscribers.Completion<Upstream.Failure>) {
        // 0: ignore, 1: deliver or recover, 2: contract violation.
        let action = state.withLock { s -> Int in
            switch (s.phase, completion) {
            case (.upstream, .finished):
                s.phase = .terminal
            case (.upstream, .failure):
                s.phase = .awaitingReplacement
            case (.terminal, _), (_, .finished):
                return 0
            case (.awaitingUpstream, .failure), (.awaitingReplacement, .failure), (.replacement, .failure):
                return 2
            }
            s.subscription = nil
            return 1
        }
        if action == 2 { violation("\(Operator.operatorName)'s upstream failed twice, or before sending its subscription") }
        guard action == 1 else { return }
        switch completion {
        case .finished:
            downstream.receive(completion: .finished)
        case .failure(let error):
            let replacement: NewPublisher
            do {
                replacement = try Operator.replacement(for: error, from: handler)
            } catch {
                let wasWaiting = state.withLock { s -> Bool in
                    guard s.phase == .awaitingReplacement else { return false }
                    s.phase = .terminal
                    return true
                }
                if wasWaiting { downstream.receive(completion: .failure(error)) }
                return
            }
            replacement.receive(subscriber: ReplacementSide(inner: self))
        }
    }

    // MARK: Replacement side

    @inlinable
    func receiveReplacement(subscription: any Subscription) {
        let demand = state.withLock { s -> Subscribers.Demand? in
            guard s.phase == .awaitingReplacement else { return nil }
            s.phase = .replacement
            s.subscription = subscription
            return s.demand
        }
        guard let demand else {
            subscription.cancel()
            return
        }
        if demand != .none { subscription.request(demand) }
    }

    /// Forwarded whatever the phase, as Combine does.
    @inlinable
    func receiveReplacement(_ input: Output) -> Subscribers.Demand {
        downstream.receive(input)
    }

    @inlinable
    func receiveReplacement(completion: Subscribers.Completion<NewPublisher.Failure>) {
        let wasActive = state.withLock { s -> Bool in
            guard s.phase == .replacement else { return false }
            s.phase = .terminal
            s.subscription = nil
            return true
        }
        guard wasActive else { return }
        switch completion {
        case .finished: downstream.receive(completion: .finished)
        case .failure(let error): downstream.receive(completion: .failure(Operator.downstreamFailure(error)))
        }
    }

    // MARK: Subscription

    @usableFromInline
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let target = state.withLock { s -> (any Subscription)? in
            switch s.phase {
            case .awaitingUpstream:
                // Unreachable: the downstream gets this subscription
                // only once the upstream's has arrived.
                return nil
            case .upstream:
                s.demand += demand
                return s.subscription
            case .awaitingReplacement:
                s.demand += demand
                return nil
            case .replacement:
                return s.subscription
            case .terminal:
                return nil
            }
        }
        target?.request(demand)
    }

    @usableFromInline
    func cancel() {
        let target = state.withLock { s -> (any Subscription)? in
            switch s.phase {
            case .upstream, .replacement:
                let target = s.subscription
                s.phase = .terminal
                s.subscription = nil
                return target
            case .awaitingUpstream, .awaitingReplacement, .terminal:
                return nil
            }
        }
        target?.cancel()
    }

    @usableFromInline var description: String { Operator.operatorName.description }
    @usableFromInline var customMirror: Mirror {
        Mirror(self, children: ["downstream": downstream, "demand": state.withLock { $0.demand }])
    }
    @usableFromInline var playgroundDescription: Any { description }

    /// The subscriber given to the upstream.
    @usableFromInline
    internal struct UpstreamSide: Subscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    {
        @usableFromInline typealias Input = Output
        @usableFromInline typealias Failure = Upstream.Failure
        @usableFromInline let inner: CatchInner

        @inlinable init(inner: CatchInner) { self.inner = inner }
        @inlinable var combineIdentifier: CombineIdentifier { CombineIdentifier(inner) }
        @inlinable func receive(subscription: any Subscription) { inner.receiveUpstream(subscription: subscription) }
        @inlinable func receive(_ input: Output) -> Subscribers.Demand { inner.receiveUpstream(input) }
        @inlinable func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            inner.receiveUpstream(completion: completion)
        }
        @usableFromInline var description: String { inner.description }
        @usableFromInline var customMirror: Mirror { inner.customMirror }
        @usableFromInline var playgroundDescription: Any { description }
    }

    /// The subscriber given to the handler's publisher.
    @usableFromInline
    internal struct ReplacementSide: Subscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    {
        @usableFromInline typealias Input = Output
        @usableFromInline typealias Failure = NewPublisher.Failure
        @usableFromInline let inner: CatchInner

        @inlinable init(inner: CatchInner) { self.inner = inner }
        @inlinable var combineIdentifier: CombineIdentifier { CombineIdentifier(inner) }
        @inlinable func receive(subscription: any Subscription) { inner.receiveReplacement(subscription: subscription) }
        @inlinable func receive(_ input: Output) -> Subscribers.Demand { inner.receiveReplacement(input) }
        @inlinable func receive(completion: Subscribers.Completion<NewPublisher.Failure>) {
            inner.receiveReplacement(completion: completion)
        }
        @usableFromInline var description: String { inner.description }
        @usableFromInline var customMirror: Mirror { inner.customMirror }
        @usableFromInline var playgroundDescription: Any { description }
    }
}
