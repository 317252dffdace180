/// A protocol that declares a type that can receive input from a publisher.
///
/// The publisher calls `receive(subscription:)` once, then `receive(_:)` at
/// most as many times as the subscriber requested, then at most one
/// `receive(completion:)`. Calls into one subscriber are serialised: a
/// publisher never calls it from two threads at the same time.
///
/// ```swift
/// let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { print($0) })
/// [1, 2].publisher.subscribe(sink)
/// // Prints: "1 2"
/// ```
public protocol Subscriber<Input, Failure>: CustomCombineIdentifierConvertible {
    /// The kind of values this subscriber receives.
    associatedtype Input

    /// The kind of errors this subscriber might receive.
    associatedtype Failure: Error

    /// Tells the subscriber that it has successfully subscribed to the
    /// publisher and may request items. Use the subscription to request
    /// elements and to cancel.
    func receive(subscription: any Subscription)

    /// Tells the subscriber that the publisher has produced an element.
    ///
    /// - Returns: The additional number of elements the subscriber wants
    ///   (`.none` for no more than already requested).
    func receive(_ input: Input) -> Subscribers.Demand

    /// Tells the subscriber that the publisher has completed publishing,
    /// either normally or with an error.
    func receive(completion: Subscribers.Completion<Failure>)
}

extension Subscriber where Input == Void {
    /// Tells the subscriber that a publisher of `Void` elements is ready to
    /// receive further requests.
    ///
    /// ```swift
    /// subscriber.receive()
    /// ```
    @inlinable
    public func receive() -> Subscribers.Demand {
        receive(())
    }
}
