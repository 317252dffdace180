extension Publisher where Output: Encodable {
    /// Encodes the output from the upstream using a specified encoder.
    ///
    /// An encoding error cancels the upstream subscription and fails the
    /// publisher with that error; nothing is published after it.
    ///
    /// ```swift
    /// struct Reading: Encodable { let celsius: Double }
    /// let c = Just(Reading(celsius: 21.5))
    ///     .encode(encoder: JSONEncoder())
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { print(String(decoding: $0, as: UTF8.self)) })
    /// // Prints: "{"celsius":21.5}"
    /// ```
    @inlinable
    public func encode<Coder: TopLevelEncoder>(encoder: Coder) -> Publishers.Encode<Self, Coder> {
        Publishers.Encode(upstream: self, encoder: encoder)
    }
}

extension Publishers {
    /// A publisher that encodes each element from the upstream with an
    /// encoder.
    ///
    /// Threading: encoding runs on the thread the upstream delivers on. The
    /// subscription describes itself as `Encode`.
    ///
    /// ```swift
    /// let bodies = Publishers.Encode(upstream: readings, encoder: JSONEncoder())
    /// ```
    public struct Encode<Upstream: Publisher, Coder: TopLevelEncoder>: Publisher
        where Upstream.Output: Encodable
    {
        /// What the encoder produces.
        public typealias Output = Coder.Output
        /// Any error: the upstream's, or an encoding error.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        @usableFromInline internal let encoder: Coder

        /// Creates a publisher that encodes the elements of `upstream`.
        @inlinable
        public init(upstream: Upstream, encoder: Coder) {
            self.upstream = upstream
            self.encoder = encoder
        }

        /// Subscribes an `Encode` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
            let encoder = self.encoder
            upstream.receive(subscriber: TryTransformer<Upstream.Output, Upstream.Failure, S>(
                downstream: subscriber, name: "Encode", rules: .untilFinished,
                transform: { try encoder.encode($0) }))
        }
    }
}
