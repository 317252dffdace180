import Synchronization

/// How a ``TryTransformer`` treats events that come before its upstream
/// subscription, after its completion or after a cancel. Combine is not
/// uniform here; each operator follows the rule Combine's does.
@usableFromInline
internal enum TryTransformerRules {
    /// `tryMap`: values always go through the closure and on downstream
    /// (also before the subscription and after completion or cancel);
    /// completion, requests and cancel count only while subscribed, so a
    /// cancel before the subscription neither requests nor cancels anything.
    /// `request(.none)` is accepted. Reflects no children.
    case forwarding
    /// `encode`, `decode`: values and completion go through until the
    /// stream finished (also before the subscription); a cancel before the
    /// subscription is ignored. Reflects `downstream`, `finished`,
    /// `upstreamSubscription`.
    case untilFinished
    /// `tryFilter`, `tryCompactMap`: a value, completion or request before
    /// the subscription is a contract violation (trap); `request(.none)`
    /// traps; a cancel before the subscription cancels the subscription
    /// when it arrives. Reflects `downstream`.
    case strict
}

/// The subscription behind every operator whose closure may throw and which
/// keeps no other state: `tryMap`, `tryFilter`, `tryCompactMap`, `decode`
/// and `encode`. It describes itself by the operator's name.
///
/// `transform` returns the element to publish, or `nil` to drop the element
/// (answered with `.max(1)` upstream, so downstream demand counts delivered
/// elements only). When it throws, the upstream is cancelled and the
/// downstream fails with the error. The upstream subscription is released
/// on completion, failure and cancel. Everything else follows ``rules``.
///
/// Threading: the closure runs on the thread the upstream delivers on,
/// outside the lock; `request` and `cancel` may come from any thread.
@usableFromInline
internal final class TryTransformer<Input, UpstreamFailure: Error, Downstream: Subscriber>: Subscriber,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Failure == any Error
{
    @usableFromInline typealias Failure = UpstreamFailure

    @usableFromInline let downstream: Downstream
    @usableFromInline let transform: (Input) throws -> Downstream.Input?
    @usableFromInline let name: StaticString
    @usableFromInline let rules: TryTransformerRules
    @usableFromInline let status: Locked<SubscriptionStatus>

    @inlinable
    init(downstream: Downstream, name: StaticString, rules: TryTransformerRules,
         transform: @escaping (Input) throws -> Downstream.Input?) {
        self.downstream = downstream
        self.name = name
        self.rules = rules
        self.transform = transform
        status = Locked(.awaitingSubscription)
    }

    @inlinable
    func receive(subscription: any Subscription) {
        let accepted = status.withLock { s -> Bool in
            guard case .awaitingSubscription = s else { return false }
            s = .subscribed(subscription)
            return true
        }
        if accepted {
            downstream.receive(subscription: self)
        } else {
            subscription.cancel()
        }
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        switch rules {
        case .forwarding:
            break
        case .untilFinished:
            guard !status.withLock({ $0.isTerminal }) else { return .none }
        case .strict:
            let phase = status.withLock { s -> Int in
                switch s {
                case .awaitingSubscription: return 0
                case .subscribed, .pendingTerminal: return 1
                case .terminal: return 2
                }
            }
            if phase == 0 { violation("\(name) received a value before its subscription") }
            if phase == 2 { return .none }
        }
        let output: Downstream.Input?
        do {
            output = try transform(input)
        } catch {
            fail(error)
            return .none
        }
        guard let output else { return .max(1) }
        return downstream.receive(output)
    }

    /// Ends the stream after a thrown error: cancel upstream, then fail.
    /// Only the first terminal event reaches the downstream.
    @inlinable
    func fail(_ error: any Error) {
        let outcome = status.withLock { s -> (deliver: Bool, upstream: (any Subscription)?) in
            guard !s.isTerminal else { return (false, nil) }
            let upstream = s.subscription
            s = .terminal
            return (true, upstream)
        }
        guard outcome.deliver else { return }
        outcome.upstream?.cancel()
        downstream.receive(completion: .failure(error))
    }

    @inlinable
    func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        let rules = self.rules
        // 0: ignore, 1: deliver, 2: contract violation.
        let action = status.withLock { s -> Int in
            switch s {
            case .awaitingSubscription:
                switch rules {
                case .forwarding: return 0
                case .untilFinished: break
                case .strict: return 2
                }
            case .subscribed, .pendingTerminal:
                break
            case .terminal:
                return 0
            }
            s = .terminal
            return 1
        }
        if action == 2 { violation("\(name) received completion before its subscription") }
        if action == 1 { downstream.receive(completion: completion.eraseError) }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        if case .strict = rules {
            demand.assertNonZero()
            let waiting = status.withLock { s -> Bool in
                if case .awaitingSubscription = s { return true }
                return false
            }
            if waiting { violation("\(name) received a request before sending its subscription") }
        }
        let upstream = status.withLock { $0.subscription }
        upstream?.request(demand)
    }

    @inlinable
    func cancel() {
        let rules = self.rules
        let upstream = status.withLock { s -> (any Subscription)? in
            switch s {
            case .awaitingSubscription:
                // Combine's tryMap, encode and decode ignore such a cancel
                // (the subscription arriving later is kept); tryFilter and
                // tryCompactMap remember it and cancel that subscription.
                if case .strict = rules { s = .terminal }
                return nil
            case .subscribed(let upstream), .pendingTerminal(let upstream):
                s = .terminal
                return upstream
            case .terminal:
                return nil
            }
        }
        upstream?.cancel()
    }

    @usableFromInline var description: String { name.description }

    @usableFromInline var customMirror: Mirror {
        switch rules {
        case .forwarding:
            return Mirror(self, children: [:])
        case .untilFinished:
            let status = self.status.withLock { $0 }
            let children: [Mirror.Child] = [
                ("downstream", downstream),
                ("finished", status.isTerminal),
                ("upstreamSubscription", status.subscription as Any),
            ]
            return Mirror(self, children: children)
        case .strict:
            return Mirror(self, children: ["downstream": downstream])
        }
    }

    @usableFromInline var playgroundDescription: Any { description }
}
