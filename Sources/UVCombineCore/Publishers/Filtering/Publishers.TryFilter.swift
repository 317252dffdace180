extension Publisher {
    /// Republishes all elements that match a provided error-throwing closure.
    ///
    /// Each rejected element is answered with `.max(1)` upstream, so the
    /// downstream's demand counts delivered elements only. If the closure
    /// throws, the upstream subscription is cancelled and the publisher fails
    /// with the thrown error; nothing is published after it.
    ///
    /// ```swift
    /// struct Zero: Error {}
    /// let c = [1, 2, 0, 4].publisher
    ///     .tryFilter { v in guard v != 0 else { throw Zero() }; return v % 2 == 0 }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// // Prints: "2 failure(Zero())"
    /// ```
    @inlinable
    public func tryFilter(_ isIncluded: @escaping (Output) throws -> Bool) -> Publishers.TryFilter<Self> {
        Publishers.TryFilter(upstream: self, isIncluded: isIncluded)
    }
}

extension Publishers {
    /// A publisher that republishes all elements that match a provided
    /// error-throwing closure.
    ///
    /// Threading: the closure runs on the thread the upstream delivers on.
    /// The subscription describes itself as `TryFilter`.
    ///
    /// ```swift
    /// let valid = Publishers.TryFilter(upstream: records.publisher) { try $0.validate() }
    /// ```
    public struct TryFilter<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// Any error: the upstream's, or the one the closure throws.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// An error-throwing closure that indicates whether to republish an
        /// element.
        public let isIncluded: (Upstream.Output) throws -> Bool

        /// Creates a throwing filter over `upstream`.
        @inlinable
        public init(upstream: Upstream, isIncluded: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.isIncluded = isIncluded
        }

        /// Subscribes a `TryFilter` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
            let isIncluded = self.isIncluded
            upstream.receive(subscriber: TryTransformer<Upstream.Output, Upstream.Failure, S>(
                downstream: subscriber, name: "TryFilter", rules: .strict, transform: { try isIncluded($0) ? $0 : nil }))
        }

        /// Fuses `filter` after `tryFilter` into one `TryFilter`.
        ///
        /// ```swift
        /// records.publisher.tryFilter { try $0.validate() }.filter { $0.isActive } // one TryFilter
        /// ```
        @inlinable
        public func filter(_ isIncluded: @escaping (Output) -> Bool) -> Publishers.TryFilter<Upstream> {
            let first = self.isIncluded
            return Publishers.TryFilter(upstream: upstream) { try first($0) && isIncluded($0) }
        }

        /// Fuses `tryFilter` after `tryFilter` into one `TryFilter`.
        ///
        /// ```swift
        /// records.publisher.tryFilter { try $0.validate() }.tryFilter { try $0.authorise() } // one TryFilter
        /// ```
        @inlinable
        public func tryFilter(_ isIncluded: @escaping (Output) throws -> Bool) -> Publishers.TryFilter<Upstream> {
            let first = self.isIncluded
            return Publishers.TryFilter(upstream: upstream) { try first($0) && isIncluded($0) }
        }
    }
}

extension Publishers.Filter {
    /// Fuses `tryFilter` after `filter` into one `TryFilter`.
    ///
    /// ```swift
    /// records.publisher.filter { $0.isActive }.tryFilter { try $0.validate() } // one TryFilter
    /// ```
    @inlinable
    public func tryFilter(_ isIncluded: @escaping (Output) throws -> Bool) -> Publishers.TryFilter<Upstream> {
        let first = self.isIncluded
        return Publishers.TryFilter(upstream: upstream) { try first($0) && isIncluded($0) }
    }
}
