/// Declares that a type can transmit a sequence of values over time.
///
/// A publisher delivers elements to one or more ``Subscriber`` instances. The
/// subscriber's `Input` and `Failure` must match the publisher's `Output` and
/// `Failure`. Nothing flows until a subscriber attaches and requests demand.
///
/// Threading: `receive(subscriber:)` may be called from any thread; where the
/// values are then delivered is each publisher's documented contract (values
/// from a publisher bound to a `UVLoop` arrive on that loop's thread).
///
/// ```swift
/// let cancellable = [1, 2, 3].publisher
///     .map { $0 * 2 }
///     .sink { print($0) }
/// // Prints: "2 4 6"
/// ```
public protocol Publisher<Output, Failure> {
    /// The kind of values published by this publisher.
    associatedtype Output

    /// The kind of errors this publisher might publish. Use `Never` if it
    /// cannot fail.
    associatedtype Failure: Error

    /// Attaches the specified subscriber to this publisher.
    ///
    /// Implementations must call `subscriber.receive(subscription:)` exactly
    /// once. Users call ``subscribe(_:)-4o153`` instead; it has the same effect.
    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure
}

extension Publisher {
    /// Attaches the specified subscriber to this publisher.
    ///
    /// Always call this function instead of ``Publisher/receive(subscriber:)``.
    /// Threading: callable from any thread.
    ///
    /// ```swift
    /// Just(1).subscribe(Subscribers.Sink(receiveCompletion: { _ in }, receiveValue: { print($0) }))
    /// // Prints: "1"
    /// ```
    @inlinable
    public func subscribe<S: Subscriber>(_ subscriber: S)
        where S.Input == Output, S.Failure == Failure
    {
        // One relaxed load while no `_Introspection` is enabled.
        if IntrospectionRegistry.isActive {
            IntrospectionRegistry.subscribe(self, subscriber)
        } else {
            receive(subscriber: subscriber)
        }
    }
}
