extension Publisher {
    /// The elements from the publisher, as a throwing asynchronous
    /// sequence.
    ///
    /// Each iteration subscribes; every `next()` requests exactly one
    /// element and waits for it. A failure is thrown from `next()`; leaving
    /// the loop early or cancelling the task cancels the subscription.
    ///
    /// ```swift
    /// struct Oops: Error {}
    /// do {
    ///     for try await value in [1, 2].publisher.setFailureType(to: Oops.self).values {
    ///         print(value)
    ///     }
    /// } catch {
    ///     print("failed: \(error)")
    /// }
    /// // Prints: "1", "2"
    /// ```
    @inlinable
    public var values: AsyncThrowingPublisher<Self> {
        AsyncThrowingPublisher(self)
    }
}

/// A publisher that exposes its elements as a throwing asynchronous
/// sequence.
///
/// `makeAsyncIterator()` subscribes to the publisher. Each `next()` requests
/// one element (`.max(1)`) and suspends until it arrives; it returns `nil`
/// once the publisher finishes, and throws the publisher's failure (once;
/// `nil` after that). Nothing is buffered and nothing is lost or duplicated.
///
/// Cancellation: cancelling the iterating task, or dropping the iterator,
/// cancels the subscription; a suspended `next()` then returns `nil` (it
/// does not throw `CancellationError`).
///
/// Threading: the publisher may deliver on any thread; `next()` resumes on
/// the iterating task's executor. Several tasks may wait in `next()` on one
/// iterator at once, as in Combine: each waiting call requests one value,
/// values go to the calls in the order they started waiting, a completion
/// ends every waiting call (the oldest gets it, the others `nil`), a value
/// sent before the subscription makes every waiting call return `nil`, and
/// cancelling any waiting task cancels the subscription and makes every
/// waiting call return `nil`. A value that no `next()` requested traps.
///
/// ```swift
/// let values = PassthroughSubject<Int, any Error>().values
/// ```
public struct AsyncThrowingPublisher<P: Publisher>: AsyncSequence {
    /// The publisher's output type.
    public typealias Element = P.Output

    @usableFromInline let publisher: P

    /// Creates a throwing asynchronous sequence of `publisher`'s elements.
    ///
    /// ```swift
    /// let sequence = AsyncThrowingPublisher(Fail<Int, CancellationError>(error: CancellationError()))
    /// ```
    @inlinable
    public init(_ publisher: P) {
        self.publisher = publisher
    }

    /// Subscribes to the publisher and returns an iterator over its
    /// elements.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        let subscriber = AsyncIteratorSubscriber<P.Output, P.Failure>()
        publisher.receive(subscriber: subscriber)
        return Iterator(owner: AsyncIterationOwner(subscriber: subscriber))
    }

    /// The iterator: one `request(.max(1))` per `next()`.
    ///
    /// ```swift
    /// var iterator = Just(1).setFailureType(to: CancellationError.self).values.makeAsyncIterator()
    /// let first = try await iterator.next() // 1
    /// ```
    public struct Iterator: AsyncIteratorProtocol {
        @usableFromInline let owner: AsyncIterationOwner<P.Output, P.Failure>

        @inlinable
        init(owner: AsyncIterationOwner<P.Output, P.Failure>) {
            self.owner = owner
        }

        /// Requests one element and waits for it; `nil` once the publisher
        /// has finished or the iteration was cancelled. Throws the
        /// publisher's failure.
        @inlinable
        public mutating func next() async throws -> P.Output? {
            try await owner.subscriber.next().get()
        }
    }
}
