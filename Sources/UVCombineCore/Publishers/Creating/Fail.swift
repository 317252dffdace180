/// A publisher that immediately terminates with the specified error.
///
/// ```swift
/// struct Oops: Error {}
/// let c = Fail<Int, Oops>(error: Oops()).sink(receiveCompletion: { print($0) }, receiveValue: { _ in })
/// // Prints: "failure(Oops())"
/// ```
public struct Fail<Output, Failure: Error>: Publisher {
    /// The failure to send.
    public let error: Failure

    /// Creates a publisher that fails with `error`.
    @inlinable
    public init(error: Failure) {
        self.error = error
    }

    /// Creates a publisher that fails with `error`, naming the output type.
    ///
    /// ```swift
    /// let failing = Fail(outputType: Int.self, failure: URLError(.badURL))
    /// ```
    @inlinable
    public init(outputType: Output.Type, failure: Failure) {
        self.error = failure
    }

    /// Sends the empty subscription, then the failure.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subscriber.receive(subscription: Subscriptions.empty)
        subscriber.receive(completion: .failure(error))
    }
}

extension Fail: Equatable where Failure: Equatable {}
extension Fail: Sendable where Failure: Sendable {}
