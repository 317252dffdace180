extension Result {
    /// A publisher that publishes this result's value once and finishes, or
    /// fails with its error.
    ///
    /// ```swift
    /// let c = Result<Int, Never>.success(1).publisher.sink { print($0) }
    /// // Prints: "1"
    /// ```
    public var publisher: Publisher {
        Publisher(self)
    }

    /// A publisher that publishes an output to each subscriber exactly once
    /// then finishes, or fails immediately without producing any elements.
    ///
    /// A success is delivered on the first request, like ``Just``; a failure
    /// right after the subscription, like ``Fail``.
    ///
    /// ```swift
    /// let p = Result<Int, URLError>.Publisher(.success(1))
    /// ```
    public struct Publisher: UVCombineCore.Publisher {
        /// The success type.
        public typealias Output = Success

        /// The result to deliver.
        public let result: Result<Success, Failure>

        /// Creates a publisher that delivers `result`.
        @inlinable
        public init(_ result: Result<Success, Failure>) {
            self.result = result
        }

        /// Creates a publisher that delivers `output`, then finishes.
        @inlinable
        public init(_ output: Success) {
            self.result = .success(output)
        }

        /// Creates a publisher that fails with `failure`.
        @inlinable
        public init(_ failure: Failure) {
            self.result = .failure(failure)
        }

        /// Delivers the result to `subscriber`.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Success, S.Failure == Failure {
            switch result {
            case .success(let value):
                subscriber.receive(subscription: OnceSubscription(value: value, downstream: subscriber, name: "Once"))
            case .failure(let error):
                subscriber.receive(subscription: Subscriptions.empty)
                subscriber.receive(completion: .failure(error))
            }
        }
    }
}

extension Result.Publisher: Equatable where Success: Equatable, Failure: Equatable {}
