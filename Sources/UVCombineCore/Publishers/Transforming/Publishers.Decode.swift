extension Publisher {
    /// Decodes the output from the upstream using a specified decoder.
    ///
    /// A decoding error cancels the upstream subscription and fails the
    /// publisher with that error; nothing is published after it.
    ///
    /// ```swift
    /// struct Reading: Decodable { let celsius: Double }
    /// let c = Just(Data(#"{"celsius": 21.5}"#.utf8))
    ///     .decode(type: Reading.self, decoder: JSONDecoder())
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0.celsius) })
    /// // Prints: "21.5 finished"
    /// ```
    @inlinable
    public func decode<Item: Decodable, Coder: TopLevelDecoder>(type: Item.Type, decoder: Coder)
        -> Publishers.Decode<Self, Item, Coder> where Output == Coder.Input
    {
        Publishers.Decode(upstream: self, decoder: decoder)
    }
}

extension Publishers {
    /// A publisher that decodes each element from the upstream with a
    /// decoder.
    ///
    /// Threading: decoding runs on the thread the upstream delivers on. The
    /// subscription describes itself as `Decode`.
    ///
    /// ```swift
    /// let readings = Publishers.Decode<_, Reading, JSONDecoder>(upstream: bodies, decoder: JSONDecoder())
    /// ```
    public struct Decode<Upstream: Publisher, Output: Decodable, Coder: TopLevelDecoder>: Publisher
        where Upstream.Output == Coder.Input
    {
        /// Any error: the upstream's, or a decoding error.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        @usableFromInline internal let decoder: Coder

        /// Creates a publisher that decodes the elements of `upstream`.
        @inlinable
        public init(upstream: Upstream, decoder: Coder) {
            self.upstream = upstream
            self.decoder = decoder
        }

        /// Subscribes a `Decode` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
            let decoder = self.decoder
            upstream.receive(subscriber: TryTransformer<Upstream.Output, Upstream.Failure, S>(
                downstream: subscriber, name: "Decode", rules: .untilFinished,
                transform: { try decoder.decode(Output.self, from: $0) }))
        }
    }
}
