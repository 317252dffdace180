import Synchronization

/// Delivers one value on the first request, then finishes: the subscription
/// behind `Just`, `Result.Publisher` and `Optional.Publisher`, which differ
/// only in the name they describe themselves by.
///
/// `request` arrives through `any Subscription`, where only the
/// unspecialised body is reachable (it looks up generic metadata on every
/// call); the delivery therefore goes through `emit`, a non-capturing
/// closure formed in the `@inlinable` initialiser and so specialised where
/// the publisher was subscribed.
@usableFromInline
internal final class OnceSubscription<Downstream: Subscriber>: Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
    @usableFromInline let value: Downstream.Input
    @usableFromInline let downstream: Downstream
    @usableFromInline let name: StaticString
    /// Set once the value has been claimed or the subscription cancelled.
    @usableFromInline let done = Atomic<Bool>(false)
    @usableFromInline let emit: (OnceSubscription) -> Void

    @inlinable
    init(value: Downstream.Input, downstream: Downstream, name: StaticString) {
        self.value = value
        self.downstream = downstream
        self.name = name
        emit = { once in
            _ = once.downstream.receive(once.value)
            once.downstream.receive(completion: .finished)
        }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        guard !done.exchange(true, ordering: .acquiringAndReleasing) else { return }
        emit(self)
    }

    @inlinable
    func cancel() {
        done.store(true, ordering: .releasing)
    }

    @usableFromInline var description: String { name.description }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: ["value": value]) }
    @usableFromInline var playgroundDescription: Any { description }
}
