/// A publisher that emits an output to each subscriber just once, and then
/// finishes.
///
/// The value is delivered on the subscriber's first request, on the
/// requesting thread. Each subscriber gets its own subscription, named
/// `Just`.
///
/// ```swift
/// let c = Just(42).sink { print($0) }
/// // Prints: "42"
/// ```
public struct Just<Output>: Publisher {
    /// Just never fails.
    public typealias Failure = Never

    /// The one element that the publisher emits.
    public let output: Output

    /// Creates a publisher that emits `output` once, then finishes.
    ///
    /// ```swift
    /// let answer = Just(42)
    /// ```
    @inlinable
    public init(_ output: Output) {
        self.output = output
    }

    /// Attaches `subscriber` with a fresh `Just` subscription.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        subscriber.receive(subscription: OnceSubscription(value: output, downstream: subscriber, name: "Just"))
    }
}

extension Just: Equatable where Output: Equatable {}
extension Just: Sendable where Output: Sendable {}

extension Just {
    /// Fuses `map` into a new `Just`.
    ///
    /// ```swift
    /// Just(2).map { $0 * 3 } // Just(6)
    /// ```
    @inlinable
    public func map<T>(_ transform: (Output) -> T) -> Just<T> {
        Just<T>(transform(output))
    }

    /// Changes the failure type, keeping the value.
    ///
    /// ```swift
    /// let typed: Result<Int, URLError>.Publisher = Just(1).setFailureType(to: URLError.self)
    /// ```
    @inlinable
    public func setFailureType<E: Error>(to failureType: E.Type) -> Result<Output, E>.Publisher {
        Result<Output, E>.Publisher(output)
    }
}
