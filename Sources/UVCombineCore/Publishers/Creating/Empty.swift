/// A publisher that never publishes any values, and optionally finishes
/// immediately.
///
/// ```swift
/// let c = Empty<Int, Never>().sink(receiveCompletion: { print($0) }, receiveValue: { _ in })
/// // Prints: "finished"
/// let forever = Empty<Int, Never>(completeImmediately: false)
/// ```
public struct Empty<Output, Failure: Error>: Publisher, Equatable {
    /// Whether the publisher sends `.finished` right after the subscription.
    public let completeImmediately: Bool

    /// Creates an empty publisher.
    @inlinable
    public init(completeImmediately: Bool = true) {
        self.completeImmediately = completeImmediately
    }

    /// Creates an empty publisher with explicit output and failure types.
    ///
    /// ```swift
    /// let none = Empty(completeImmediately: true, outputType: Int.self, failureType: Never.self)
    /// ```
    @inlinable
    public init(completeImmediately: Bool = true, outputType: Output.Type, failureType: Failure.Type) {
        self.init(completeImmediately: completeImmediately)
    }

    /// Sends the empty subscription, then `.finished` if asked to.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subscriber.receive(subscription: Subscriptions.empty)
        if completeImmediately {
            subscriber.receive(completion: .finished)
        }
    }

    /// Two empty publishers are equal when they complete alike.
    public static func == (lhs: Empty, rhs: Empty) -> Bool {
        lhs.completeImmediately == rhs.completeImmediately
    }
}

extension Empty: Sendable {}
