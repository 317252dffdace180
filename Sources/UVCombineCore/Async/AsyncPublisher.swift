extension Publisher where Failure == Never {
    /// The elements from the publisher, as an asynchronous sequence.
    ///
    /// Each iteration subscribes; every `next()` requests exactly one
    /// element and waits for it, so the publisher never runs ahead of the
    /// loop (a subject's sends between two `next()` calls find no demand and
    /// are dropped, as for any subscriber asking one at a time). Leaving the
    /// loop early or cancelling the task cancels the subscription.
    ///
    /// ```swift
    /// for await value in [1, 2, 3].publisher.values {
    ///     print(value)
    /// }
    /// // Prints: "1", "2", "3"
    /// ```
    @inlinable
    public var values: AsyncPublisher<Self> {
        AsyncPublisher(self)
    }
}

/// A publisher that exposes its elements as an asynchronous sequence.
///
/// `makeAsyncIterator()` subscribes to the publisher. Each `next()` requests
/// one element (`.max(1)`) and suspends until it arrives; it returns `nil`
/// once the publisher finishes. Nothing is buffered and nothing is lost or
/// duplicated: the publisher delivers each element it was asked for to the
/// `next()` that asked.
///
/// Cancellation: cancelling the iterating task, or dropping the iterator
/// (leaving a `for await` loop with `break`), cancels the subscription; a
/// suspended `next()` then returns `nil`.
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
/// let subject = CurrentValueSubject<Int, Never>(0)
/// Task {
///     for await value in subject.values { print(value) }
/// }
/// ```
public struct AsyncPublisher<P: Publisher>: AsyncSequence where P.Failure == Never {
    /// The publisher's output type.
    public typealias Element = P.Output

    @usableFromInline let publisher: P

    /// Creates an asynchronous sequence of `publisher`'s elements.
    ///
    /// ```swift
    /// let sequence = AsyncPublisher(Just(1))
    /// ```
    @inlinable
    public init(_ publisher: P) {
        self.publisher = publisher
    }

    /// Subscribes to the publisher and returns an iterator over its
    /// elements.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        let subscriber = AsyncIteratorSubscriber<P.Output, Never>()
        publisher.receive(subscriber: subscriber)
        return Iterator(owner: AsyncIterationOwner(subscriber: subscriber))
    }

    /// The iterator: one `request(.max(1))` per `next()`.
    ///
    /// ```swift
    /// var iterator = Just(1).values.makeAsyncIterator()
    /// let first = await iterator.next() // 1
    /// ```
    public struct Iterator: AsyncIteratorProtocol {
        @usableFromInline let owner: AsyncIterationOwner<P.Output, Never>

        @inlinable
        init(owner: AsyncIterationOwner<P.Output, Never>) {
            self.owner = owner
        }

        /// Requests one element and waits for it; `nil` once the publisher
        /// has finished or the iteration was cancelled.
        @inlinable
        public mutating func next() async -> P.Output? {
            switch await owner.subscriber.next() {
            case .success(let value): return value
            }
        }
    }
}
