extension Publisher {
    /// Shares the output of an upstream publisher with multiple subscribers.
    ///
    /// `share()` is `multicast { PassthroughSubject() }.autoconnect()` in one
    /// class: the first subscriber subscribes to the upstream (which gets
    /// `.unlimited`); later subscribers join that one subscription and see
    /// only later values; a subscriber without demand misses values. After
    /// the upstream completes, a new subscriber receives only the completion
    /// and the upstream is not subscribed again. When every subscriber has
    /// cancelled, the upstream subscription is cancelled, and the next
    /// subscriber subscribes anew.
    ///
    /// ```swift
    /// let shared = subject.map { $0 * 2 }.share()
    /// let c1 = shared.sink { print("1: \($0)") }
    /// let c2 = shared.sink { print("2: \($0)") }
    /// subject.send(1) // Prints: "1: 2", "2: 2"; the map runs once
    /// ```
    @inlinable
    public func share() -> Publishers.Share<Self> {
        Publishers.Share(upstream: self)
    }
}

extension Publishers {
    /// A publisher that shares the output of an upstream publisher with
    /// multiple subscribers.
    ///
    /// A class, unlike most publishers: copies of a reference share one
    /// upstream subscription. Equal only to itself. Subscribers see a
    /// subscription named `Multicast`, as in Combine.
    ///
    /// Threading: `receive(subscriber:)` may be called from any thread;
    /// values arrive on the thread the upstream delivers on; fanning a value
    /// out allocates nothing.
    ///
    /// ```swift
    /// let shared = Publishers.Share(upstream: subject)
    /// let c = shared.sink { print($0) }
    /// ```
    public final class Share<Upstream: Publisher>: Publisher, Equatable {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        @usableFromInline
        internal let inner: Autoconnect<Multicast<Upstream, PassthroughSubject<Output, Failure>>>

        /// Creates a publisher that shares `upstream`.
        ///
        /// ```swift
        /// let shared = Publishers.Share(upstream: [1, 2].publisher)
        /// ```
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
            inner = Autoconnect(upstream: Multicast(upstream: upstream, createSubject: { PassthroughSubject() }))
        }

        /// Attaches `subscriber`, connecting to the upstream if it is the
        /// first.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            // receive(subscriber:), not subscribe(_:), so the chain stays
            // specialised: see docs/engineering-notes.md.
            inner.receive(subscriber: subscriber)
        }

        /// Identity: a share equals only itself.
        public static func == (lhs: Share, rhs: Share) -> Bool {
            lhs === rhs
        }
    }
}

// Immutable; the shared state lives in the Autoconnect and Multicast, whose
// mutable state is behind their mutexes.
extension Publishers.Share: @unchecked Sendable where Upstream: Sendable, Upstream.Output: Sendable {}
