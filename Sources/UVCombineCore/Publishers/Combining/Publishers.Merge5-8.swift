// Merge5 through Merge8: the arities Combine declares beyond the ones
// Zip and CombineLatest have; the same publisher as `Publishers.Merge`
// (Publishers.Merge.swift), over MergeInner. The `merge(with:)` operators
// that build them are in Publisher+Merge.swift.

extension Publishers {
    /// A publisher created by applying the merge function to five upstream
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
    /// let merged = Publishers.Merge5([1].publisher, [2].publisher, [3].publisher, [4].publisher, [5].publisher)
    /// let c = merged.sink { print($0, terminator: " ") }
    /// // Prints: "1 2 3 4 5 "
    /// ```
    public struct Merge5<A: Publisher, B: Publisher, C: Publisher, D: Publisher, E: Publisher>: Publisher
        where A.Failure == B.Failure, A.Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output, D.Failure == E.Failure, D.Output == E.Output
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

        /// A fifth publisher to merge.
        public let e: E

        /// Creates a publisher that merges five upstream publishers.
        ///
        /// ```swift
        /// let merged = Publishers.Merge5(Just(1), Just(2), Just(3), Just(4), Just(5))
        /// ```
        @inlinable
        public init(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
            self.e = e
        }

        /// Subscribes `subscriber`, then each upstream in order.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = MergeInner<S>(downstream: subscriber, count: 5)
            subscriber.receive(subscription: inner)
            a.receive(subscriber: inner.side(0))
            b.receive(subscriber: inner.side(1))
            c.receive(subscriber: inner.side(2))
            d.receive(subscriber: inner.side(3))
            e.receive(subscriber: inner.side(4))
        }

        /// Merges this publisher's upstreams with another publisher into one
        /// `Merge6`, rather than nesting merges.
        ///
        /// ```swift
        /// let merged = Publishers.Merge5(Just(1), Just(2), Just(3), Just(4), Just(5)).merge(with: Just(6))
        /// ```
        @inlinable
        public func merge<P: Publisher>(with other: P) -> Publishers.Merge6<A, B, C, D, E, P>
            where E.Failure == P.Failure, E.Output == P.Output
        {
            Publishers.Merge6(a, b, c, d, e, other)
        }

        /// Merges this publisher's upstreams with two more publishers into one
        /// `Merge7`, rather than nesting merges.
        ///
        /// ```swift
        /// let merged = Publishers.Merge5(Just(1), Just(2), Just(3), Just(4), Just(5)).merge(with: Just(6), Just(7))
        /// ```
        @inlinable
        public func merge<Z: Publisher, Y: Publisher>(with z: Z, _ y: Y) -> Publishers.Merge7<A, B, C, D, E, Z, Y>
            where E.Failure == Z.Failure, E.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output
        {
            Publishers.Merge7(a, b, c, d, e, z, y)
        }

        /// Merges this publisher's upstreams with three more publishers into one
        /// `Merge8`, rather than nesting merges.
        ///
        /// ```swift
        /// let merged = Publishers.Merge5(Just(1), Just(2), Just(3), Just(4), Just(5)).merge(with: Just(6), Just(7), Just(8))
        /// ```
        @inlinable
        public func merge<Z: Publisher, Y: Publisher, X: Publisher>(with z: Z, _ y: Y, _ x: X) -> Publishers.Merge8<A, B, C, D, E, Z, Y, X>
            where E.Failure == Z.Failure, E.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output
        {
            Publishers.Merge8(a, b, c, d, e, z, y, x)
        }
    }

    /// A publisher created by applying the merge function to six upstream
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
    /// let merged = Publishers.Merge6([1].publisher, [2].publisher, [3].publisher, [4].publisher, [5].publisher, [6].publisher)
    /// let c = merged.sink { print($0, terminator: " ") }
    /// // Prints: "1 2 3 4 5 6 "
    /// ```
    public struct Merge6<A: Publisher, B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher>: Publisher
        where A.Failure == B.Failure, A.Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output, D.Failure == E.Failure, D.Output == E.Output, E.Failure == F.Failure, E.Output == F.Output
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

        /// A fifth publisher to merge.
        public let e: E

        /// A sixth publisher to merge.
        public let f: F

        /// Creates a publisher that merges six upstream publishers.
        ///
        /// ```swift
        /// let merged = Publishers.Merge6(Just(1), Just(2), Just(3), Just(4), Just(5), Just(6))
        /// ```
        @inlinable
        public init(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
            self.e = e
            self.f = f
        }

        /// Subscribes `subscriber`, then each upstream in order.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = MergeInner<S>(downstream: subscriber, count: 6)
            subscriber.receive(subscription: inner)
            a.receive(subscriber: inner.side(0))
            b.receive(subscriber: inner.side(1))
            c.receive(subscriber: inner.side(2))
            d.receive(subscriber: inner.side(3))
            e.receive(subscriber: inner.side(4))
            f.receive(subscriber: inner.side(5))
        }

        /// Merges this publisher's upstreams with another publisher into one
        /// `Merge7`, rather than nesting merges.
        ///
        /// ```swift
        /// let merged = Publishers.Merge6(Just(1), Just(2), Just(3), Just(4), Just(5), Just(6)).merge(with: Just(7))
        /// ```
        @inlinable
        public func merge<P: Publisher>(with other: P) -> Publishers.Merge7<A, B, C, D, E, F, P>
            where F.Failure == P.Failure, F.Output == P.Output
        {
            Publishers.Merge7(a, b, c, d, e, f, other)
        }

        /// Merges this publisher's upstreams with two more publishers into one
        /// `Merge8`, rather than nesting merges.
        ///
        /// ```swift
        /// let merged = Publishers.Merge6(Just(1), Just(2), Just(3), Just(4), Just(5), Just(6)).merge(with: Just(7), Just(8))
        /// ```
        @inlinable
        public func merge<Z: Publisher, Y: Publisher>(with z: Z, _ y: Y) -> Publishers.Merge8<A, B, C, D, E, F, Z, Y>
            where F.Failure == Z.Failure, F.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output
        {
            Publishers.Merge8(a, b, c, d, e, f, z, y)
        }
    }

    /// A publisher created by applying the merge function to seven upstream
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
    /// let merged = Publishers.Merge7([1].publisher, [2].publisher, [3].publisher, [4].publisher, [5].publisher, [6].publisher, [7].publisher)
    /// let c = merged.sink { print($0, terminator: " ") }
    /// // Prints: "1 2 3 4 5 6 7 "
    /// ```
    public struct Merge7<A: Publisher, B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher, G: Publisher>: Publisher
        where A.Failure == B.Failure, A.Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output, D.Failure == E.Failure, D.Output == E.Output, E.Failure == F.Failure, E.Output == F.Output, F.Failure == G.Failure, F.Output == G.Output
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

        /// A fifth publisher to merge.
        public let e: E

        /// A sixth publisher to merge.
        public let f: F

        /// A seventh publisher to merge.
        public let g: G

        /// Creates a publisher that merges seven upstream publishers.
        ///
        /// ```swift
        /// let merged = Publishers.Merge7(Just(1), Just(2), Just(3), Just(4), Just(5), Just(6), Just(7))
        /// ```
        @inlinable
        public init(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
            self.e = e
            self.f = f
            self.g = g
        }

        /// Subscribes `subscriber`, then each upstream in order.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = MergeInner<S>(downstream: subscriber, count: 7)
            subscriber.receive(subscription: inner)
            a.receive(subscriber: inner.side(0))
            b.receive(subscriber: inner.side(1))
            c.receive(subscriber: inner.side(2))
            d.receive(subscriber: inner.side(3))
            e.receive(subscriber: inner.side(4))
            f.receive(subscriber: inner.side(5))
            g.receive(subscriber: inner.side(6))
        }

        /// Merges this publisher's upstreams with another publisher into one
        /// `Merge8`, rather than nesting merges.
        ///
        /// ```swift
        /// let merged = Publishers.Merge7(Just(1), Just(2), Just(3), Just(4), Just(5), Just(6), Just(7)).merge(with: Just(8))
        /// ```
        @inlinable
        public func merge<P: Publisher>(with other: P) -> Publishers.Merge8<A, B, C, D, E, F, G, P>
            where G.Failure == P.Failure, G.Output == P.Output
        {
            Publishers.Merge8(a, b, c, d, e, f, g, other)
        }
    }

    /// A publisher created by applying the merge function to eight upstream
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
    /// let merged = Publishers.Merge8([1].publisher, [2].publisher, [3].publisher, [4].publisher, [5].publisher, [6].publisher, [7].publisher, [8].publisher)
    /// let c = merged.sink { print($0, terminator: " ") }
    /// // Prints: "1 2 3 4 5 6 7 8 "
    /// ```
    public struct Merge8<A: Publisher, B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher, G: Publisher, H: Publisher>: Publisher
        where A.Failure == B.Failure, A.Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output, D.Failure == E.Failure, D.Output == E.Output, E.Failure == F.Failure, E.Output == F.Output, F.Failure == G.Failure, F.Output == G.Output, G.Failure == H.Failure, G.Output == H.Output
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

        /// A fifth publisher to merge.
        public let e: E

        /// A sixth publisher to merge.
        public let f: F

        /// A seventh publisher to merge.
        public let g: G

        /// An eighth publisher to merge.
        public let h: H

        /// Creates a publisher that merges eight upstream publishers.
        ///
        /// ```swift
        /// let merged = Publishers.Merge8(Just(1), Just(2), Just(3), Just(4), Just(5), Just(6), Just(7), Just(8))
        /// ```
        @inlinable
        public init(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
            self.e = e
            self.f = f
            self.g = g
            self.h = h
        }

        /// Subscribes `subscriber`, then each upstream in order.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = MergeInner<S>(downstream: subscriber, count: 8)
            subscriber.receive(subscription: inner)
            a.receive(subscriber: inner.side(0))
            b.receive(subscriber: inner.side(1))
            c.receive(subscriber: inner.side(2))
            d.receive(subscriber: inner.side(3))
            e.receive(subscriber: inner.side(4))
            f.receive(subscriber: inner.side(5))
            g.receive(subscriber: inner.side(6))
            h.receive(subscriber: inner.side(7))
        }
    }
}

extension Publishers.Merge5: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable, E: Equatable {}
extension Publishers.Merge6: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable, E: Equatable, F: Equatable {}
extension Publishers.Merge7: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable, E: Equatable, F: Equatable, G: Equatable {}
extension Publishers.Merge8: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable, E: Equatable, F: Equatable, G: Equatable, H: Equatable {}
