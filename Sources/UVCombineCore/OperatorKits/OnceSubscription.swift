import Synchronization

/// Delivers one value on the first request, then finishes: the subscription
/// behind `Just`, `Result.Publisher` and `Optional.Publisher`, which differ
/// only in the name they describe themselves by ("Just", "Once",
/// "Optional", as Combine's).
///
/// As Combine's, it releases its subscriber once the value and the
/// completion are delivered, or on cancel (so a subscriber that keeps its
/// subscription does not keep itself alive), and traps on a request of
/// `.none` (Combine's `Just`, `Optional` and `Once` subscriptions trap there
/// too). Its mirror has one unlabelled child, the value.
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
    /// The subscriber until the value is claimed or the subscription
    /// cancelled. After `init`, only the one caller that flips `done` (the
    /// first request, or a cancel before it) reads or clears it, so it needs
    /// no lock of its own.
    @usableFromInline var downstream: Downstream?
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
            guard let downstream = once.downstream else { return }
            once.downstream = nil // released when this delivery returns
            _ = downstream.receive(once.value)
            downstream.receive(completion: .finished)
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
        guard !done.exchange(true, ordering: .acquiringAndReleasing) else { return }
        downstream = nil
    }

    @usableFromInline var description: String { name.description }
    @usableFromInline var customMirror: Mirror { Mirror(self, unlabeledChildren: CollectionOfOne(value)) }
    @usableFromInline var playgroundDescription: Any { description }
}
