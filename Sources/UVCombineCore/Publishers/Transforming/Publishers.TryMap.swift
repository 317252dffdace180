extension Publisher {
    /// Transforms all elements from the upstream publisher with a provided
    /// error-throwing closure.
    ///
    /// If the closure throws, the upstream subscription is cancelled and the
    /// publisher fails with the thrown error; nothing is published after it.
    ///
    /// ```swift
    /// struct TooBig: Error {}
    /// let c = [1, 2, 30, 4].publisher
    ///     .tryMap { v -> Int in guard v < 10 else { throw TooBig() }; return v * 2 }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// // Prints: "2 4 failure(TooBig())"
    /// ```
    @inlinable
    public func tryMap<T>(_ transform: @escaping (Output) throws -> T) -> Publishers.TryMap<Self, T> {
        Publishers.TryMap(upstream: self, transform: transform)
    }
}

extension Publishers {
    /// A publisher that transforms all elements from the upstream publisher
    /// with a provided error-throwing closure.
    ///
    /// Threading: the closure runs on the thread the upstream delivers on.
    /// The subscription describes itself as `TryMap`.
    ///
    /// ```swift
    /// let parsed = Publishers.TryMap(upstream: ["1"].publisher) { try parse($0) }
    /// ```
    public struct TryMap<Upstream: Publisher, Output>: Publisher {
        /// Any error: the upstream's, or the one the closure throws.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The error-throwing closure that transforms elements from the
        /// upstream publisher.
        public let transform: (Upstream.Output) throws -> Output

        /// Creates a throwing map over `upstream`.
        @inlinable
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) throws -> Output) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Subscribes a `TryMap` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
            let transform = self.transform
            upstream.receive(subscriber: TryTransformer<Upstream.Output, Upstream.Failure, S>(
                downstream: subscriber, name: "TryMap", rules: .forwarding, transform: { try transform($0) }))
        }

        /// Fuses `map` after `tryMap` into one `TryMap`.
        ///
        /// ```swift
        /// ["1"].publisher.tryMap { try parse($0) }.map { $0 * 2 } // one TryMap
        /// ```
        @inlinable
        public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.TryMap<Upstream, T> {
            let first = self.transform
            return Publishers.TryMap(upstream: upstream) { transform(try first($0)) }
        }

        /// Fuses `tryMap` after `tryMap` into one `TryMap`.
        ///
        /// ```swift
        /// ["1"].publisher.tryMap { try parse($0) }.tryMap { try check($0) } // one TryMap
        /// ```
        @inlinable
        public func tryMap<T>(_ transform: @escaping (Output) throws -> T) -> Publishers.TryMap<Upstream, T> {
            let first = self.transform
            return Publishers.TryMap(upstream: upstream) { try transform(try first($0)) }
        }
    }
}

extension Publishers.Map {
    /// Fuses `tryMap` after `map` into one `TryMap`.
    ///
    /// ```swift
    /// [1].publisher.map { $0 + 1 }.tryMap { try check($0) } // one TryMap
    /// ```
    @inlinable
    public func tryMap<T>(_ transform: @escaping (Output) throws -> T) -> Publishers.TryMap<Upstream, T> {
        let first = self.transform
        return Publishers.TryMap(upstream: upstream) { try transform(first($0)) }
    }
}

extension Just {
    /// Applies a throwing transform at once, as Combine does for `Just`: the
    /// result is a publisher of the value or of the thrown error.
    ///
    /// ```swift
    /// let p: Result<Int, any Error>.Publisher = Just("1").tryMap { try parse($0) }
    /// ```
    @inlinable
    public func tryMap<T>(_ transform: (Output) throws -> T) -> Result<T, any Error>.Publisher {
        Result<T, any Error>.Publisher(Result { try transform(output) })
    }
}
