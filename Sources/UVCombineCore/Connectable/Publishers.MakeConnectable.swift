extension Publisher where Failure == Never {
    /// Creates a connectable wrapper around the publisher.
    ///
    /// Subscribers attach without starting anything; `connect()` subscribes
    /// to this publisher and lets values flow to every subscriber at once.
    /// Keep the cancellable `connect()` returns.
    ///
    /// ```swift
    /// let pub = Just("Sent").share().makeConnectable()
    /// let c1 = pub.sink { print("Stream 1 received: \($0)") }
    /// let c2 = pub.sink { print("Stream 2 received: \($0)") }
    /// let connection = pub.connect()
    /// // Prints: "Stream 1 received: Sent", "Stream 2 received: Sent"
    /// ```
    @inlinable
    public func makeConnectable() -> Publishers.MakeConnectable<Self> {
        Publishers.MakeConnectable(upstream: self)
    }
}

extension Publishers {
    /// A publisher that provides explicit connectability to another
    /// publisher.
    ///
    /// A ``Multicast`` over a ``PassthroughSubject``: subscribers see a
    /// subscription named `Multicast`, nothing is requested from the upstream
    /// before `connect()`, then the upstream gets `.unlimited` and
    /// subscribers without demand miss values. Copies of this struct share
    /// one subject.
    ///
    /// Threading: as ``Multicast``.
    ///
    /// ```swift
    /// let connectable = Publishers.MakeConnectable(upstream: subject)
    /// let connection = connectable.connect()
    /// ```
    public struct MakeConnectable<Upstream: Publisher>: ConnectablePublisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        @usableFromInline internal let inner: Multicast<Upstream, PassthroughSubject<Output, Failure>>

        /// Creates a connectable publisher attached to `upstream`.
        ///
        /// ```swift
        /// let connectable = Publishers.MakeConnectable(upstream: [1, 2].publisher)
        /// ```
        @inlinable
        public init(upstream: Upstream) {
            inner = Multicast(upstream: upstream, createSubject: { PassthroughSubject() })
        }

        /// Attaches `subscriber`; nothing flows before `connect()`.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            // receive(subscriber:), not subscribe(_:), so the chain stays
            // specialised: see docs/engineering-notes.md.
            inner.receive(subscriber: subscriber)
        }

        /// Subscribes to the upstream; cancel the result to stop it.
        ///
        /// ```swift
        /// let connection = connectable.connect()
        /// ```
        @inlinable
        public func connect() -> any Cancellable {
            inner.connect()
        }
    }
}

extension Publishers.MakeConnectable: Sendable where Upstream: Sendable, Upstream.Output: Sendable {}
