extension Publisher {
    /// Republishes elements while a predicate closure indicates publishing
    /// should continue.
    ///
    /// The first element for which `predicate` returns `false` is not
    /// published: the upstream is cancelled and the publisher finishes.
    ///
    /// ```swift
    /// let c = [2, 4, 5, 6].publisher.prefix { $0 % 2 == 0 }.sink { print($0) }
    /// // Prints: "2 4"
    /// ```
    @inlinable
    public func prefix(while predicate: @escaping (Output) -> Bool) -> Publishers.PrefixWhile<Self> {
        Publishers.PrefixWhile(upstream: self, predicate: predicate)
    }
}

extension Just {
    /// Keeps the value if it satisfies `predicate`, at once, as Combine does
    /// for `Just`.
    ///
    /// ```swift
    /// Just(5).prefix { $0 < 3 } // Optional<Int>.none.publisher
    /// ```
    @inlinable
    public func prefix(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(predicate(output) ? output : nil)
    }
}

extension Optional.Publisher {
    /// Keeps the value, if any, if it satisfies `predicate`, at once.
    ///
    /// ```swift
    /// Optional(1).publisher.prefix { $0 < 3 } // Optional(1).publisher
    /// ```
    @inlinable
    public func prefix(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(output.flatMap { predicate($0) ? $0 : nil })
    }
}

extension Publishers {
    /// A publisher that republishes elements while a predicate closure
    /// indicates publishing should continue.
    ///
    /// Threading: the closure runs on the thread the upstream delivers on,
    /// outside any lock. The subscription describes itself as `PrefixWhile`.
    ///
    /// ```swift
    /// let small = Publishers.PrefixWhile(upstream: (0..<10).publisher) { $0 < 3 }
    /// ```
    public struct PrefixWhile<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that determines whether to continue republishing.
        public let predicate: (Upstream.Output) -> Bool

        /// Creates a publisher that republishes `upstream`'s elements while
        /// `predicate` holds.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Subscribes a `PrefixWhile` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: FilterSubscription(downstream: subscriber,
                                                            logic: Logic(predicate: predicate), initial: ()))
        }
    }
}

extension Publishers.PrefixWhile {
    /// Publishes while the predicate holds, then finishes.
    @usableFromInline
    internal struct Logic: FilterLogic {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias State = Void
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let predicate: (Upstream.Output) -> Bool

        @inlinable
        init(predicate: @escaping (Upstream.Output) -> Bool) {
            self.predicate = predicate
        }

        @inlinable
        static var name: String { "PrefixWhile" }

        @inlinable
        static var rules: FilterRules { .strict }

        @inlinable
        func mirrorChildren(downstream: Any, state _: State) -> [Mirror.Child] {
            [("downstream", downstream)]
        }

        @inlinable
        func step(_ state: inout Void, _ input: Upstream.Output) -> FilterStep<Upstream.Failure> {
            predicate(input) ? .publish : .finish
        }

        @inlinable
        func failure(_ error: Upstream.Failure) -> Upstream.Failure { error }
    }
}
