/// A publisher that awaits subscription before running the supplied closure
/// to create a publisher for the new subscriber.
///
/// Each subscriber gets a publisher of its own, created on the subscribing
/// thread at subscription time. Use it to postpone work (such as a `Future`,
/// which starts at creation) until someone subscribes, and to start it again
/// for every subscriber (which is what `retry` needs).
///
/// ```swift
/// let fresh = Deferred { Future<Int, Never> { promise in promise(.success(Int.random(in: 1...6))) } }
/// let a = fresh.sink { print($0) } // a new roll
/// let b = fresh.sink { print($0) } // another roll
/// ```
public struct Deferred<DeferredPublisher: Publisher>: Publisher {
    /// The created publisher's output type.
    public typealias Output = DeferredPublisher.Output
    /// The created publisher's failure type.
    public typealias Failure = DeferredPublisher.Failure

    /// The closure to execute when this publisher receives a subscription.
    public let createPublisher: () -> DeferredPublisher

    /// Creates a deferred publisher.
    ///
    /// ```swift
    /// let lazy = Deferred { Just(expensiveValue()) }
    /// ```
    @inlinable
    public init(createPublisher: @escaping () -> DeferredPublisher) {
        self.createPublisher = createPublisher
    }

    /// Creates a publisher and subscribes `subscriber` to it.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        createPublisher().receive(subscriber: subscriber)
    }
}
