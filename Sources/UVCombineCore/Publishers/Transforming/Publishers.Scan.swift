import Synchronization

extension Publisher {
    /// Transforms elements from the upstream publisher by providing the
    /// current element to a closure along with the last value it returned.
    ///
    /// Publishes every intermediate result. Each subscription starts again
    /// from `initialResult`. The subscription is passed through (as in
    /// Combine): one object per subscription for the accumulator, nothing
    /// allocated per element.
    ///
    /// ```swift
    /// let c = [1, 2, 3].publisher.scan(0) { $0 + $1 }.sink { print($0) }
    /// // Prints: "1 3 6"
    /// ```
    @inlinable
    public func scan<T>(_ initialResult: T,
                        _ nextPartialResult: @escaping (T, Output) -> T) -> Publishers.Scan<Self, T> {
        Publishers.Scan(upstream: self, initialResult: initialResult, nextPartialResult: nextPartialResult)
    }
}

extension Publishers {
    /// A publisher that transforms elements by providing each one to a
    /// closure along with the last value the closure returned.
    ///
    /// Threading: the closure runs on the thread the upstream delivers on,
    /// outside any lock.
    ///
    /// ```swift
    /// let sums = Publishers.Scan(upstream: [1, 2].publisher, initialResult: 0) { $0 + $1 }
    /// ```
    public struct Scan<Upstream: Publisher, Output>: Publisher {
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The value the closure receives with the first element.
        public let initialResult: Output

        /// A closure that takes the previous result and the next element and
        /// returns the next result.
        public let nextPartialResult: (Output, Upstream.Output) -> Output

        /// Creates a scan over `upstream`.
        @inlinable
        public init(upstream: Upstream, initialResult: Output,
                    nextPartialResult: @escaping (Output, Upstream.Output) -> Output) {
            self.upstream = upstream
            self.initialResult = initialResult
            self.nextPartialResult = nextPartialResult
        }

        /// Subscribes an inner subscriber holding a fresh accumulator.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, initialResult: initialResult,
                                     nextPartialResult: nextPartialResult))
        }
    }
}

extension Publishers.Scan {
    /// Keeps the accumulator; the upstream subscription goes straight to the
    /// downstream, so requests and cancellation cost nothing extra.
    @usableFromInline
    internal final class Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == Output, Downstream.Failure == Upstream.Failure
    {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let downstream: Downstream
        @usableFromInline let nextPartialResult: (Output, Upstream.Output) -> Output
        /// The last result. Values arrive one at a time (the Subscriber
        /// contract); the lock makes the hand-over between delivering threads
        /// explicit. The closure runs outside it, so a closure that feeds the
        /// upstream re-entrantly cannot deadlock.
        @usableFromInline let result: Locked<Output>

        @inlinable
        init(downstream: Downstream, initialResult: Output,
             nextPartialResult: @escaping (Output, Upstream.Output) -> Output) {
            self.downstream = downstream
            self.nextPartialResult = nextPartialResult
            result = Locked(initialResult)
        }

        @inlinable
        func receive(subscription: any Subscription) {
            downstream.receive(subscription: subscription)
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            let previous = result.withLock { $0 }
            let next = nextPartialResult(previous, input)
            result.withLock { $0 = next }
            return downstream.receive(next)
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Failure>) {
            downstream.receive(completion: completion)
        }

        @usableFromInline var description: String { "Scan" }
        @usableFromInline var customMirror: Mirror {
            Mirror(self, children: ["downstream": downstream, "result": result.snapshot])
        }
        @usableFromInline var playgroundDescription: Any { description }
    }
}

extension Just {
    /// Applies the accumulator to the single value at once; as in Combine,
    /// the result is a `Result.Publisher` (not a `Just`).
    ///
    /// ```swift
    /// let p: Result<Int, Never>.Publisher = Just(2).scan(10) { $0 + $1 } // publishes 12
    /// ```
    @inlinable
    public func scan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Result<T, Never>.Publisher {
        Result<T, Never>.Publisher(nextPartialResult(initialResult, output))
    }
}
