/// A completion kept until the downstream has its subscription.
///
/// Combine's `zip` and `combineLatest` subscribe their inputs before they
/// hand the downstream its subscription, so an input can finish or fail
/// before there is anyone to tell; Combine then delivers the completion
/// right after the subscription. Part of the operator's locked state.
@usableFromInline
internal struct HeldCompletion<Failure: Error> {
    /// The downstream has received its subscription: completions go to it
    /// directly from now on.
    @usableFromInline var downstreamSubscribed = false
    @usableFromInline var pending: Subscribers.Completion<Failure>?

    @inlinable
    internal init() {}

    /// The completion to deliver now, or nil if it must wait for the
    /// subscription (it is kept).
    @inlinable
    internal mutating func deliverable(_ completion: Subscribers.Completion<Failure>)
        -> Subscribers.Completion<Failure>?
    {
        if downstreamSubscribed { return completion }
        pending = completion
        return nil
    }

    /// Marks the subscription delivered; returns the completion that waited.
    @inlinable
    internal mutating func subscriptionDelivered() -> Subscribers.Completion<Failure>? {
        downstreamSubscribed = true
        defer { pending = nil }
        return pending
    }
}

/// Hands `downstream` its `subscription` while holding `gate` (so no
/// completion from another thread overtakes it), runs `afterSubscription`,
/// then delivers the completion that waited, if any. `delivered` marks the
/// subscription delivered in the operator's state and returns that
/// completion. Returns whether this was the outermost use of the gate (the
/// caller then runs its recorded upstream calls).
@inlinable
internal func deliverSubscription<Downstream: Subscriber>(
    _ subscription: some Subscription, to downstream: Downstream, gate: borrowing DownstreamGate,
    delivered: () -> Subscribers.Completion<Downstream.Failure>?, afterSubscription: () -> Void = {}
) -> Bool {
    let (outermost, pending) = gate.withGate { nested -> (Bool, Subscribers.Completion<Downstream.Failure>?) in
        downstream.receive(subscription: subscription)
        return (!nested, delivered())
    }
    afterSubscription()
    if let pending {
        gate.withGate { _ in downstream.receive(completion: pending) }
    }
    return outermost
}
