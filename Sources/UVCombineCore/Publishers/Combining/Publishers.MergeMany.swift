extension Publisher {
    /// Combines elements from this publisher with those from another
    /// publisher of the same type, delivering an interleaved sequence of
    /// elements.
    ///
    /// Returns a ``Publishers/MergeMany``, which can keep growing with
    /// `merge(with:)` without changing type. The rules of
    /// ``Publishers/Merge`` apply.
    ///
    /// ```swift
    /// let a = PassthroughSubject<Int, Never>()
    /// let b = PassthroughSubject<Int, Never>()
    /// let c = a.merge(with: b).sink { print($0, terminator: " ") }
    /// b.send(2); a.send(1)
    /// // Prints: "2 1 "
    /// ```
    @inlinable
    public func merge(with other: Self) -> Publishers.MergeMany<Self> {
        Publishers.MergeMany(self, other)
    }
}

extension Publishers {
    /// A publisher created by applying the merge function to an arbitrary
    /// number of upstream publishers of one type.
    ///
    /// Emits every element any upstream publishes, as it arrives. Finishes
    /// when every upstream has finished and every buffered element has been
    /// delivered (with no upstreams, on the first request); the first failure
    /// cancels the other upstreams and fails the merge.
    ///
    /// Demand, as for ``Publishers/Merge``: while the downstream demand is
    /// finite each upstream is asked for one element at a time, and at most
    /// one element per upstream waits while the downstream has no demand;
    /// `.unlimited` is passed to every upstream.
    ///
    /// Threading: upstreams may publish on any threads; the merge delivers
    /// one element at a time, and `cancel()` waits for an element being
    /// delivered on another thread.
    ///
    /// ```swift
    /// let subjects = (0..<3).map { _ in PassthroughSubject<Int, Never>() }
    /// let c = Publishers.MergeMany(subjects).sink { print($0, terminator: " ") }
    /// subjects[2].send(3); subjects[0].send(1)
    /// // Prints: "3 1 "
    /// ```
    public struct MergeMany<Upstream: Publisher>: Publisher {
        /// The upstreams' output type.
        public typealias Output = Upstream.Output
        /// The upstreams' failure type.
        public typealias Failure = Upstream.Failure

        /// The array of upstream publishers that this publisher merges
        /// together.
        public let publishers: [Upstream]

        /// Creates a publisher that merges any number of upstream publishers.
        ///
        /// ```swift
        /// let merged = Publishers.MergeMany(Just(1), Just(2), Just(3))
        /// ```
        @inlinable
        public init(_ upstream: Upstream...) {
            publishers = upstream
        }

        /// Creates a publisher that merges a sequence of upstream publishers.
        ///
        /// ```swift
        /// let merged = Publishers.MergeMany((1...3).map { Just($0) })
        /// ```
        @inlinable
        public init<S: Swift.Sequence>(_ upstream: S) where S.Element == Upstream {
            publishers = Array(upstream)
        }

        /// Subscribes `subscriber`, then each upstream in order.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = MergeInner<S>(downstream: subscriber, count: publishers.count)
            subscriber.receive(subscription: inner)
            var index = 0
            for publisher in publishers {
                publisher.receive(subscriber: inner.side(index))
                index += 1
            }
        }

        /// Combines elements from this publisher with those from another
        /// publisher of the same type: a `MergeMany` with one more upstream.
        ///
        /// ```swift
        /// let merged = Publishers.MergeMany(Just(1), Just(2)).merge(with: Just(3))
        /// ```
        @inlinable
        public func merge(with other: Upstream) -> Publishers.MergeMany<Upstream> {
            Publishers.MergeMany(publishers + [other])
        }
    }
}

extension Publishers.MergeMany: Equatable where Upstream: Equatable {}
