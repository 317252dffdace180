// Merge, Merge3 and Merge4: thin publishers over MergeInner (MergeInner.swift),
// which holds the merge's rules. The operators that build them are in
// Publisher+Merge.swift; Merge5 through Merge8 in Publishers.Merge5-8.swift.

extension Publishers {
    /// A publisher created by applying the merge function to two upstream
    /// publishers.
    ///
    /// Emits every element any upstream publishes, as it arrives. Finishes
    /// when every upstream has finished and every buffered element has been
    /// delivered; the first failure cancels the other upstreams and fails
    /// the merge.
    ///
    /// Demand: downstream demand is shared by all upstreams. While it is
    /// finite, each upstream is asked for one element at a time; an element
    /// that arrives while the downstream has no demand waits in that
    /// upstream's one-element buffer, and that upstream is asked for nothing
    /// more until the element has been delivered. So at most one element per
    /// upstream is buffered. Once the downstream asks for `.unlimited`, every
    /// upstream is asked for `.unlimited` and nothing is buffered.
    ///
    /// Threading: upstreams may publish on any threads; the merge delivers
    /// one element at a time, and `cancel()` waits for an element being
    /// delivered on another thread.
    ///
    /// ```swift
    /// let merged = Publishers.Merge([1].publisher, [2].publisher)
    /// let c = merged.sink { print($0, terminator: " ") }
    /// // Prints: "1 2 "
    /// ```
    public struct Merge<A: Publisher, B: Publisher>: Publisher
        where A.Failure == B.Failure, A.Output == B.Output
    {
        /// The upstreams' common output type.
        public typealias Output = A.Output
        /// The upstreams' common failure type.
        public typealias Failure = A.Failure

        /// A publisher to merge.
        public let a: A

        /// A second publisher to merge.
        public let b: B

        /// Creates a publisher that merges two upstream publishers.
        ///
        /// ```swift
        /// let merged = Publishers.Merge(Just(1), Just(2))
        /// ```
        @inlinable
        public init(_ a: A, _ b: B) {
            self.a = a
            self.b = b
        }

        /// Subscribes `subscriber`, then each upstream in order.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = MergeInner<S>(downstream: subscriber, count: 2)
            subscriber.receive(subscription: inner)
            a.receive(subscriber: inner.side(0))
            b.receive(subscriber: inner.side(1))
        }

        /// Merges this publisher's upstreams with another publisher into one
        /// `Merge3`, rather than nesting merges.
        ///
        /// ```swift
        /// let merged = Publishers.Merge(Just(1), Just(2)).merge(with: Just(3))
        /// ```
        @inlinable
        public func merge<P: Publisher>(with other: P) -> Publishers.Merge3<A, B, P>
            where B.Failure == P.Failure, B.Output == P.Output
        {
            Publishers.Merge3(a, b, other)
        }

        /// Merges this publisher's upstreams with two more publishers into one
        /// `Merge4`, rather than nesting merges.
        ///
        /// ```swift
        /// let merged = Publishers.Merge(Just(1), Just(2)).merge(with: Just(3), Just(4))
        /// ```
        @inlinable
        public func merge<Z: Publisher, Y: Publisher>(with z: Z, _ y: Y) -> Publishers.Merge4<A, B, Z, Y>
            where B.Failure == Z.Failure, B.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output
        {
            Publishers.Merge4(a, b, z, y)
        }

        /// Merges this publisher's upstreams with three more publishers into one
        /// `Merge5`, rather than nesting merges.
        ///
        /// ```swift
        /// let merged = Publishers.Merge(Just(1), Just(2)).merge(with: Just(3), Just(4), Just(5))
        /// ```
        @inlinable
        public func merge<Z: Publisher, Y: Publisher, X: Publisher>(with z: Z, _ y: Y, _ x: X) -> Publishers.Merge5<A, B, Z, Y, X>
            where B.Failure == Z.Failure, B.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output
        {
            Publishers.Merge5(a, b, z, y, x)
        }

        /// Merges this publisher's upstreams with four more publishers into one
        /// `Merge6`, rather than nesting merges.
        ///
        /// ```swift
        /// let merged = Publishers.Merge(Just(1), Just(2)).merge(with: Just(3), Just(4), Just(5), Just(6))
        /// ```
        @inlinable
        public func merge<Z: Publisher, Y: Publisher, X: Publisher, W: Publisher>(with z: Z, _ y: Y, _ x: X, _ w: W) -> Publishers.Merge6<A, B, Z, Y, X, W>
            where B.Failure == Z.Failure, B.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output, X.Failure == W.Failure, X.Output == W.Output
        {
            Publishers.Merge6(a, b, z, y, x, w)
        }

        /// Merges this publisher's upstreams with five more publishers into one
        /// `Merge7`, rather than nesting merges.
        ///
        /// ```swift
        /// let merged = Publishers.Merge(Just(1), Just(2)).merge(with: Just(3), Just(4), Just(5), Just(6), Just(7))
        /// ```
        @inlinable
        public func merge<Z: Publisher, Y: Publisher, X: Publisher, W: Publisher, V: Publisher>(with z: Z, _ y: Y, _ x: X, _ w: W, _ v: V) -> Publishers.Merge7<A, B, Z, Y, X, W, V>
            where B.Failure == Z.Failure, B.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output, X.Failure == W.Failure, X.Output == W.Output, W.Failure == V.Failure, W.Output == V.Output
        {
            Publishers.Merge7(a, b, z, y, x, w, v)
        }

        /// Merges this publisher's upstreams with six more publishers into one
        /// `Merge8`, rather than nesting merges.
        ///
        /// ```swift
        /// let merged = Publishers.Merge(Just(1), Just(2)).merge(with: Just(3), Just(4), Just(5), Just(6), Just(7), Just(8))
        /// ```
        @inlinable
        public func merge<Z: Publisher, Y: Publisher, X: Publisher, W: Publisher, V: Publisher, U: Publisher>(with z: Z, _ y: Y, _ x: X, _ w: W, _ v: V, _ u: U) -> Publishers.Merge8<A, B, Z, Y, X, W, V, U>
            where B.Failure == Z.Failure, B.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output, X.Failure == W.Failure, X.Output == W.Output, W.Failure == V.Failure, W.Output == V.Output, V.Failure == U.Failure, V.Output == U.Output
        {
            Publishers.Merge8(a, b, z, y, x, w, v, u)
        }
    }

    /// A publisher created by applying the merge function to three upstream
    /// publishers.
    ///
    /// Emits every element any upstream publishes, as it arrives. Finishes
    /// when every upstream has finished and every buffered element has been
    /// delivered; the first failure cancels the other upstreams and fails
    /// the merge.
    ///
    /// Demand: downstream demand is shared by all upstreams. While it is
    /// finite, each upstream is asked for one element at a time; an element
    /// that arrives while the downstream has no demand waits in that
    /// upstream's one-element buffer, and that upstream is asked for nothing
    /// more until the element has been delivered. So at most one element per
    /// upstream is buffered. Once the downstream asks for `.unlimited`, every
    /// upstream is asked for `.unlimited` and nothing is buffered.
    ///
    /// Threading: upstreams may publish on any threads; the merge delivers
    /// one element at a time, and `cancel()` waits for an element being
    /// delivered on another thread.
    ///
    /// ```swift
    /// let merged = Publishers.Merge3([1].publisher, [2].publisher, [3].publisher)
    /// let c = merged.sink { print($0, terminator: " ") }
    /// // Prints: "1 2 3 "
    /// ```
    public struct Merge3<A: Publisher, B: Publisher, C: Publisher>: Publisher
        where A.Failure == B.Failure, A.Output == B.Output, B.Failure == C.Failure, B.Output == C.Output
    {
        /// The upstreams' common output type.
        public typealias Output = A.Output
        /// The upstreams' common failure type.
        public typealias Failure = A.Failure

        /// A publisher to merge.
        public let a: A

        /// A second publisher to merge.
        public let b: B

        /// A third publisher to merge.
        public let c: C

        /// Creates a publisher that merges three upstream publishers.
        ///
        /// ```swift
        /// let merged = Publishers.Merge3(Just(1), Just(2), Just(3))
        /// ```
        @inlinable
        public init(_ a: A, _ b: B, _ c: C) {
            self.a = a
            self.b = b
            self.c = c
        }

        /// Subscribes `subscriber`, then each upstream in order.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = MergeInner<S>(downstream: subscriber, count: 3)
            subscriber.receive(subscription: inner)
            a.receive(subscriber: inner.side(0))
            b.receive(subscriber: inner.side(1))
            c.receive(subscriber: inner.side(2))
        }

        /// Merges this publisher's upstreams with another publisher into one
        /// `Merge4`, rather than nesting merges.
        ///
        /// ```swift
        /// let merged = Publishers.Merge3(Just(1), Just(2), Just(3)).merge(with: Just(4))
        /// ```
        @inlinable
        public func merge<P: Publisher>(with other: P) -> Publishers.Merge4<A, B, C, P>
            where C.Failure == P.Failure, C.Output == P.Output
        {
            Publishers.Merge4(a, b, c, other)
        }

        /// Merges this publisher's upstreams with two more publishers into one
        /// `Merge5`, rather than nesting merges.
        ///
        /// ```swift
        /// let merged = Publishers.Merge3(Just(1), Just(2), Just(3)).merge(with: Just(4), Just(5))
        /// ```
        @inlinable
        public func merge<Z: Publisher, Y: Publisher>(with z: Z, _ y: Y) -> Publishers.Merge5<A, B, C, Z, Y>
            where C.Failure == Z.Failure, C.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output
        {
            Publishers.Merge5(a, b, c, z, y)
        }

        /// Merges this publisher's upstreams with three more publishers into one
        /// `Merge6`, rather than nesting merges.
        ///
        /// ```swift
        /// let merged = Publishers.Merge3(Just(1), Just(2), Just(3)).merge(with: Just(4), Just(5), Just(6))
        /// ```
        @inlinable
        public func merge<Z: Publisher, Y: Publisher, X: Publisher>(with z: Z, _ y: Y, _ x: X) -> Publishers.Merge6<A, B, C, Z, Y, X>
            where C.Failure == Z.Failure, C.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output
        {
            Publishers.Merge6(a, b, c, z, y, x)
        }

        /// Merges this publisher's upstreams with four more publishers into one
        /// `Merge7`, rather than nesting merges.
        ///
        /// ```swift
        /// let merged = Publishers.Merge3(Just(1), Just(2), Just(3)).merge(with: Just(4), Just(5), Just(6), Just(7))
        /// ```
        @inlinable
        public func merge<Z: Publisher, Y: Publisher, X: Publisher, W: Publisher>(with z: Z, _ y: Y, _ x: X, _ w: W) -> Publishers.Merge7<A, B, C, Z, Y, X, W>
            where C.Failure == Z.Failure, C.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output, X.Failure == W.Failure, X.Output == W.Output
        {
            Publishers.Merge7(a, b, c, z, y, x, w)
        }

        /// Merges this publisher's upstreams with five more publishers into one
        /// `Merge8`, rather than nesting merges.
        ///
        /// ```swift
        /// let merged = Publishers.Merge3(Just(1), Just(2), Just(3)).merge(with: Just(4), Just(5), Just(6), Just(7), Just(8))
        /// ```
        @inlinable
        public func merge<Z: Publisher, Y: Publisher, X: Publisher, W: Publisher, V: Publisher>(with z: Z, _ y: Y, _ x: X, _ w: W, _ v: V) -> Publishers.Merge8<A, B, C, Z, Y, X, W, V>
            where C.Failure == Z.Failure, C.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output, X.Failure == W.Failure, X.Output == W.Output, W.Failure == V.Failure, W.Output == V.Output
        {
            Publishers.Merge8(a, b, c, z, y, x, w, v)
        }
    }

    /// A publisher created by applying the merge function to four upstream
    /// publishers.
    ///
    /// Emits every element any upstream publishes, as it arrives. Finishes
    /// when every upstream has finished and every buffered element has been
    /// delivered; the first failure cancels the other upstreams and fails
    /// the merge.
    ///
    /// Demand: downstream demand is shared by all upstreams. While it is
    /// finite, each upstream is asked for one element at a time; an element
    /// that arrives while the downstream has no demand waits in that
    /// upstream's one-element buffer, and that upstream is asked for nothing
    /// more until the element has been delivered. So at most one element per
    /// upstream is buffered. Once the downstream asks for `.unlimited`, every
    /// upstream is asked for `.unlimited` and nothing is buffered.
    ///
    /// Threading: upstreams may publish on any threads; the merge delivers
    /// one element at a time, and `cancel()` waits for an element being
    /// delivered on another thread.
    ///
    /// ```swift
    /// let merged = Publishers.Merge4([1].publisher, [2].publisher, [3].publisher, [4].publisher)
    /// let c = merged.sink { print($0, terminator: " ") }
    /// // Prints: "1 2 3 4 "
    /// ```
    public struct Merge4<A: Publisher, B: Publisher, C: Publisher, D: Publisher>: Publisher
        where A.Failure == B.Failure, A.Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output
    {
        /// The upstreams' common output type.
        public typealias Output = A.Output
        /// The upstreams' common failure type.
        public typealias Failure = A.Failure

        /// A publisher to merge.
        public let a: A

        /// A second publisher to merge.
        public let b: B

        /// A third publisher to merge.
        public let c: C

        /// A fourth publisher to merge.
        public let d: D

        /// Creates a publisher that merges four upstream publishers.
        ///
        /// ```swift
        /// let merged = Publishers.Merge4(Just(1), Just(2), Just(3), Just(4))
        /// ```
        @inlinable
        public init(_ a: A, _ b: B, _ c: C, _ d: D) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
        }

        /// Subscribes `subscriber`, then each upstream in order.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = MergeInner<S>(downstream: subscriber, count: 4)
            subscriber.receive(subscription: inner)
            a.receive(subscriber: inner.side(0))
            b.receive(subscriber: inner.side(1))
            c.receive(subscriber: inner.side(2))
            d.receive(subscriber: inner.side(3))
        }

        /// Merges this publisher's upstreams with another publisher into one
        /// `Merge5`, rather than nesting merges.
        ///
        /// ```swift
        /// let merged = Publishers.Merge4(Just(1), Just(2), Just(3), Just(4)).merge(with: Just(5))
        /// ```
        @inlinable
        public func merge<P: Publisher>(with other: P) -> Publishers.Merge5<A, B, C, D, P>
            where D.Failure == P.Failure, D.Output == P.Output
        {
            Publishers.Merge5(a, b, c, d, other)
        }

        /// Merges this publisher's upstreams with two more publishers into one
        /// `Merge6`, rather than nesting merges.
        ///
        /// ```swift
        /// let merged = Publishers.Merge4(Just(1), Just(2), Just(3), Just(4)).merge(with: Just(5), Just(6))
        /// ```
        @inlinable
        public func merge<Z: Publisher, Y: Publisher>(with z: Z, _ y: Y) -> Publishers.Merge6<A, B, C, D, Z, Y>
            where D.Failure == Z.Failure, D.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output
        {
            Publishers.Merge6(a, b, c, d, z, y)
        }

        /// Merges this publisher's upstreams with three more publishers into one
        /// `Merge7`, rather than nesting merges.
        ///
        /// ```swift
        /// let merged = Publishers.Merge4(Just(1), Just(2), Just(3), Just(4)).merge(with: Just(5), Just(6), Just(7))
        /// ```
        @inlinable
        public func merge<Z: Publisher, Y: Publisher, X: Publisher>(with z: Z, _ y: Y, _ x: X) -> Publishers.Merge7<A, B, C, D, Z, Y, X>
            where D.Failure == Z.Failure, D.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output
        {
            Publishers.Merge7(a, b, c, d, z, y, x)
        }

        /// Merges this publisher's upstreams with four more publishers into one
        /// `Merge8`, rather than nesting merges.
        ///
        /// ```swift
        /// let merged = Publishers.Merge4(Just(1), Just(2), Just(3), Just(4)).merge(with: Just(5), Just(6), Just(7), Just(8))
        /// ```
        @inlinable
        public func merge<Z: Publisher, Y: Publisher, X: Publisher, W: Publisher>(with z: Z, _ y: Y, _ x: X, _ w: W) -> Publishers.Merge8<A, B, C, D, Z, Y, X, W>
            where D.Failure == Z.Failure, D.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output, X.Failure == W.Failure, X.Output == W.Output
        {
            Publishers.Merge8(a, b, c, d, z, y, x, w)
        }
    }
}

extension Publishers.Merge: Equatable where A: Equatable, B: Equatable {}
extension Publishers.Merge3: Equatable where A: Equatable, B: Equatable, C: Equatable {}
extension Publishers.Merge4: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable {}
