/// The subscriptions a subject received as a subscriber (`send(subscription:)`):
/// almost always one, so the first is kept inline and only more go into an
/// array (a subscription to `share()` then costs no array).
@usableFromInline
internal struct UpstreamList {
    @usableFromInline var first: (any Subscription)?
    /// Non-empty only while `first` is set.
    @usableFromInline var rest: ContiguousArray<any Subscription> = []
    /// How many there are: testing `first` for nil is a value-witness
    /// call, this is a load.
    @usableFromInline var count = 0

    @inlinable
    init() {}

    @inlinable
    mutating func append(_ upstream: any Subscription) {
        if count == 0 { first = upstream } else { rest.append(upstream) }
        count += 1
    }

    @inlinable
    func forEach(_ body: (any Subscription) -> Void) {
        guard count > 0, let first else { return }
        body(first)
        for upstream in rest { body(upstream) }
    }
}
