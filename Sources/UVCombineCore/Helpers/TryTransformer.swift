import Synchronization

/// The subscription behind every operator whose closure may throw and which
/// keeps no other state: `tryMap`, `tryFilter`, `tryCompactMap`, `decode`
/// and `encode`. It describes itself by the operator's name.
///
/// `transform` returns the element to publish, or `nil` to drop the element
/// (answered with `.max(1)` upstream, so downstream demand counts delivered
/// elements only). When it throws, the upstream is cancelled and the
/// downstream fails with the error; nothing is delivered afterwards, even if
/// the upstream keeps sending. Requests are forwarded while subscribed.
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
    @usableFromInline let status: Mutex<UncheckedSendable<SubscriptionStatus>>

    @inlinable
    init(downstream: Downstream, name: StaticString, transform: @escaping (Input) throws -> Downstream.Input?) {
        self.downstream = downstream
        self.name = name
        self.transform = transform
        status = Mutex(UncheckedSendable(.awaitingSubscription))
    }

    @inlinable
    func receive(subscription: any Subscription) {
        let accepted = status.withLock { s -> Bool in
            guard case .awaitingSubscription = s.value else { return false }
            s.value = .subscribed(subscription)
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
        guard status.withLock({ $0.value.isSubscribed }) else { return .none }
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
    @inlinable
    func fail(_ error: any Error) {
        let upstream = status.withLock { s -> UncheckedSendable<(any Subscription)?> in
            guard case .subscribed(let upstream) = s.value else { return UncheckedSendable(nil) }
            s.value = .terminal
            return UncheckedSendable(upstream)
        }
        guard let upstream = upstream.value else { return }
        upstream.cancel()
        downstream.receive(completion: .failure(error))
    }

    @inlinable
    func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        let wasSubscribed = status.withLock { s -> Bool in
            guard s.value.isSubscribed else { return false }
            s.value = .terminal
            return true
        }
        if wasSubscribed { downstream.receive(completion: completion.eraseError) }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let upstream = status.withLock { UncheckedSendable($0.value.subscription) }
        upstream.value?.request(demand)
    }

    @inlinable
    func cancel() {
        let upstream = status.withLock { s -> UncheckedSendable<(any Subscription)?> in
            let upstream = s.value.subscription
            s.value = .terminal
            return UncheckedSendable(upstream)
        }
        upstream.value?.cancel()
    }

    @usableFromInline var description: String { name.description }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: ["downstream": downstream]) }
    @usableFromInline var playgroundDescription: Any { description }
}
