extension Publisher {
    /// Calls an error-throwing closure with each received element and
    /// publishes any returned optional that has a value.
    ///
    /// Each element mapped to `nil` is answered with `.max(1)` upstream. If
    /// the closure throws, the upstream subscription is cancelled and the
    /// publisher fails with the thrown error; nothing is published after it.
    ///
    /// ```swift
    /// struct Negative: Error {}
    /// let c = ["1", "x", "-3", "4"].publisher
    ///     .tryCompactMap { s -> Int? in
    ///         guard let v = Int(s) else { return nil }
    ///         guard v >= 0 else { throw Negative() }
    ///         return v
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// // Prints: "1 failure(Negative())"
    /// ```
    @inlinable
    public func tryCompactMap<T>(_ transform: @escaping (Output) throws -> T?) -> Publishers.TryCompactMap<Self, T> {
        Publishers.TryCompactMap(upstream: self, transform: transform)
    }
}

extension Publishers {
    /// A publisher that republishes all non-`nil` results of calling an
    /// error-throwing closure with each received element.
    ///
    /// Threading: the closure runs on the thread the upstream delivers on.
    /// The subscription describes itself as `TryCompactMap`.
    ///
    /// ```swift
    /// let ids = Publishers.TryCompactMap(upstream: lines.publisher) { try parseID($0) }
    /// ```
    public struct TryCompactMap<Upstream: Publisher, Output>: Publisher {
        /// Any error: the upstream's, or the one the closure throws.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// An error-throwing closure that receives values from the upstream
        /// publisher and returns optional values.
        public let transform: (Upstream.Output) throws -> Output?

        /// Creates a throwing compact map over `upstream`.
        @inlinable
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) throws -> Output?) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Subscribes a `TryCompactMap` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
            upstream.receive(subscriber: TryTransformer<Upstream.Output, Upstream.Failure, S>(
                downstream: subscriber, name: "TryCompactMap", rules: .strict, transform: transform))
        }

        /// Fuses a further (throwing) `compactMap` into one `TryCompactMap`.
        ///
        /// ```swift
        /// lines.publisher.tryCompactMap { try parseID($0) }.compactMap { $0 > 0 ? $0 : nil } // one stage
        /// ```
        @inlinable
        public func compactMap<T>(_ transform: @escaping (Output) throws -> T?) -> Publishers.TryCompactMap<Upstream, T> {
            let first = self.transform
            return Publishers.TryCompactMap(upstream: upstream) { try first($0).flatMap(transform) }
        }
    }
}
