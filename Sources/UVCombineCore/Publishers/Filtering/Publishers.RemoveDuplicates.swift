extension Publisher where Output: Equatable {
    /// Publishes only elements that don't match the previous element.
    ///
    /// Each repeated element is answered with `.max(1)` upstream, so
    /// downstream demand counts delivered elements only.
    ///
    /// ```swift
    /// let c = [1, 1, 2, 2, 1].publisher.removeDuplicates().sink { print($0) }
    /// // Prints: "1 2 1"
    /// ```
    @inlinable
    public func removeDuplicates() -> Publishers.RemoveDuplicates<Self> {
        Publishers.RemoveDuplicates(upstream: self, predicate: ==)
    }
}

extension Publisher {
    /// Publishes only elements that don't match the previous element, as
    /// evaluated by a provided closure.
    ///
    /// The closure receives the previous element and the current one and
    /// returns `true` when the current one is a duplicate. Every element,
    /// published or not, becomes the previous element for the next.
    ///
    /// ```swift
    /// let c = [1, 2, 12, 3].publisher.removeDuplicates { $0 % 10 == $1 % 10 }.sink { print($0) }
    /// // Prints: "1 2 3"
    /// ```
    @inlinable
    public func removeDuplicates(
        by predicate: @escaping (Output, Output) -> Bool
    ) -> Publishers.RemoveDuplicates<Self> {
        Publishers.RemoveDuplicates(upstream: self, predicate: predicate)
    }
}

extension Just where Output: Equatable {
    /// A single value has no duplicates: the same publisher, as in Combine.
    ///
    /// ```swift
    /// Just(1).removeDuplicates() // Just(1)
    /// ```
    @inlinable
    public func removeDuplicates() -> Just<Output> {
        self
    }
}

extension Just {
    /// A single value has no duplicates: the same publisher, as in Combine.
    ///
    /// ```swift
    /// Just(1).removeDuplicates { $0 == $1 } // Just(1)
    /// ```
    @inlinable
    public func removeDuplicates(by predicate: (Output, Output) -> Bool) -> Just<Output> {
        self
    }
}

extension Optional.Publisher where Wrapped: Equatable {
    /// A single value has no duplicates: the same publisher.
    ///
    /// ```swift
    /// Optional(1).publisher.removeDuplicates() // Optional(1).publisher
    /// ```
    @inlinable
    public func removeDuplicates() -> Optional<Wrapped>.Publisher {
        self
    }
}

extension Optional.Publisher {
    /// A single value has no duplicates: the same publisher.
    ///
    /// ```swift
    /// Optional(1).publisher.removeDuplicates { $0 == $1 } // Optional(1).publisher
    /// ```
    @inlinable
    public func removeDuplicates(by predicate: (Output, Output) -> Bool) -> Optional<Output>.Publisher {
        self
    }
}

extension Publishers {
    /// A publisher that publishes only elements that don't match the
    /// previous element.
    ///
    /// Threading: the closure runs on the thread the upstream delivers on,
    /// outside any lock. The subscription describes itself as
    /// `RemoveDuplicates`.
    ///
    /// ```swift
    /// let changes = Publishers.RemoveDuplicates(upstream: readings.publisher) { $0 == $1 }
    /// ```
    public struct RemoveDuplicates<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// A closure to evaluate whether two elements are equivalent, for
        /// purposes of filtering.
        public let predicate: (Output, Output) -> Bool

        /// Creates a publisher that drops elements `predicate` finds equal
        /// to their predecessor.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Output, Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Subscribes a `RemoveDuplicates` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: FilterSubscription(downstream: subscriber,
                                                            logic: Logic(predicate: predicate), initial: nil))
        }
    }
}

extension Publishers.RemoveDuplicates {
    /// Compares each element with the previous one.
    @usableFromInline
    internal struct Logic: FilterLogic {
        @usableFromInline typealias Input = Upstream.Output
        /// The previous element.
        @usableFromInline typealias State = Upstream.Output?
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let predicate: (Upstream.Output, Upstream.Output) -> Bool

        @inlinable
        init(predicate: @escaping (Upstream.Output, Upstream.Output) -> Bool) {
            self.predicate = predicate
        }

        @inlinable
        static var name: String { "RemoveDuplicates" }

        @inlinable
        static var rules: FilterRules { .strict }

        @inlinable
        func mirrorChildren(downstream: Any, state: State) -> [Mirror.Child] {
            [("downstream", downstream), ("last", state as Any)]
        }

        @inlinable
        func step(_ previous: inout Upstream.Output?, _ input: Upstream.Output) -> FilterStep<Upstream.Failure> {
            defer { previous = input }
            guard let last = previous else { return .publish }
            return predicate(last, input) ? .drop : .publish
        }

        @inlinable
        func failure(_ error: Upstream.Failure) -> Upstream.Failure { error }
    }
}
