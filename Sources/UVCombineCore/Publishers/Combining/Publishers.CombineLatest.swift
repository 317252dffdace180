extension Publisher {
    /// Subscribes to another publisher and publishes a tuple of the most recent value
    /// of each publisher whenever any of them publishes.
    ///
    /// Nothing is published until every publisher has published at least
    /// one value. Requests are passed to every upstream; a tuple goes out
    /// only while the downstream has demand, and a value that arrives
    /// without demand only replaces its publisher's latest value (one value
    /// per upstream is kept). Finishes when every upstream has finished; the
    /// first failure cancels the other upstreams and fails.
    ///
    /// Threading: the upstreams may publish on any threads; tuples go
    /// downstream one at a time.
    ///
    /// ```swift
    /// let s0 = PassthroughSubject<Int, Never>()
    /// let s1 = PassthroughSubject<Int, Never>()
    /// let c = s0.combineLatest(s1).sink { print($0) }
    /// s0.send(1); s1.send(2); s0.send(3)
    /// // Prints: "(1, 2)" "(3, 2)"
    /// ```
    @inlinable
    public func combineLatest<P: Publisher>(_ other: P) -> Publishers.CombineLatest<Self, P>
        where Failure == P.Failure
    {
        Publishers.CombineLatest(self, other)
    }

    /// Subscribes to another publisher and publishes the result of `transform` on
    /// the most recent value of each publisher whenever any of them
    /// publishes.
    ///
    /// The same rules as the tuple-publishing `combineLatest` apply;
    /// `transform` runs outside every lock, on the thread that delivers.
    ///
    /// ```swift
    /// let s0 = PassthroughSubject<Int, Never>()
    /// let s1 = PassthroughSubject<Int, Never>()
    /// let c = s0.combineLatest(s1) { $0 + $1 }.sink { print($0) }
    /// s0.send(1); s1.send(2); s0.send(3)
    /// // Prints: "3 5"
    /// ```
    @inlinable
    public func combineLatest<P: Publisher, T>(_ other: P, _ transform: @escaping (Output, P.Output) -> T)
        -> Publishers.Map<Publishers.CombineLatest<Self, P>, T>
        where Failure == P.Failure
    {
        Publishers.CombineLatest(self, other).map { transform($0.0, $0.1) }
    }

    /// Subscribes to two more publishers and publishes a tuple of the most recent value
    /// of each publisher whenever any of them publishes.
    ///
    /// Nothing is published until every publisher has published at least
    /// one value. Requests are passed to every upstream; a tuple goes out
    /// only while the downstream has demand, and a value that arrives
    /// without demand only replaces its publisher's latest value (one value
    /// per upstream is kept). Finishes when every upstream has finished; the
    /// first failure cancels the other upstreams and fails.
    ///
    /// Threading: the upstreams may publish on any threads; tuples go
    /// downstream one at a time.
    ///
    /// ```swift
    /// let s0 = PassthroughSubject<Int, Never>()
    /// let s1 = PassthroughSubject<Int, Never>()
    /// let s2 = PassthroughSubject<Int, Never>()
    /// let c = s0.combineLatest(s1, s2).sink { print($0) }
    /// s0.send(1); s1.send(2); s2.send(3); s0.send(4)
    /// // Prints: "(1, 2, 3)" "(4, 2, 3)"
    /// ```
    @inlinable
    public func combineLatest<P: Publisher, Q: Publisher>(_ publisher1: P, _ publisher2: Q) -> Publishers.CombineLatest3<Self, P, Q>
        where Failure == P.Failure, P.Failure == Q.Failure
    {
        Publishers.CombineLatest3(self, publisher1, publisher2)
    }

    /// Subscribes to two more publishers and publishes the result of `transform` on
    /// the most recent value of each publisher whenever any of them
    /// publishes.
    ///
    /// The same rules as the tuple-publishing `combineLatest` apply;
    /// `transform` runs outside every lock, on the thread that delivers.
    ///
    /// ```swift
    /// let s0 = PassthroughSubject<Int, Never>()
    /// let s1 = PassthroughSubject<Int, Never>()
    /// let s2 = PassthroughSubject<Int, Never>()
    /// let c = s0.combineLatest(s1, s2) { $0 + $1 + $2 }.sink { print($0) }
    /// s0.send(1); s1.send(2); s2.send(3); s0.send(4)
    /// // Prints: "6 9"
    /// ```
    @inlinable
    public func combineLatest<P: Publisher, Q: Publisher, T>(_ publisher1: P, _ publisher2: Q, _ transform: @escaping (Output, P.Output, Q.Output) -> T)
        -> Publishers.Map<Publishers.CombineLatest3<Self, P, Q>, T>
        where Failure == P.Failure, P.Failure == Q.Failure
    {
        Publishers.CombineLatest3(self, publisher1, publisher2).map { transform($0.0, $0.1, $0.2) }
    }

    /// Subscribes to three more publishers and publishes a tuple of the most recent value
    /// of each publisher whenever any of them publishes.
    ///
    /// Nothing is published until every publisher has published at least
    /// one value. Requests are passed to every upstream; a tuple goes out
    /// only while the downstream has demand, and a value that arrives
    /// without demand only replaces its publisher's latest value (one value
    /// per upstream is kept). Finishes when every upstream has finished; the
    /// first failure cancels the other upstreams and fails.
    ///
    /// Threading: the upstreams may publish on any threads; tuples go
    /// downstream one at a time.
    ///
    /// ```swift
    /// let s0 = PassthroughSubject<Int, Never>()
    /// let s1 = PassthroughSubject<Int, Never>()
    /// let s2 = PassthroughSubject<Int, Never>()
    /// let s3 = PassthroughSubject<Int, Never>()
    /// let c = s0.combineLatest(s1, s2, s3).sink { print($0) }
    /// s0.send(1); s1.send(2); s2.send(3); s3.send(4); s0.send(5)
    /// // Prints: "(1, 2, 3, 4)" "(5, 2, 3, 4)"
    /// ```
    @inlinable
    public func combineLatest<P: Publisher, Q: Publisher, R: Publisher>(_ publisher1: P, _ publisher2: Q, _ publisher3: R) -> Publishers.CombineLatest4<Self, P, Q, R>
        where Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure
    {
        Publishers.CombineLatest4(self, publisher1, publisher2, publisher3)
    }

    /// Subscribes to three more publishers and publishes the result of `transform` on
    /// the most recent value of each publisher whenever any of them
    /// publishes.
    ///
    /// The same rules as the tuple-publishing `combineLatest` apply;
    /// `transform` runs outside every lock, on the thread that delivers.
    ///
    /// ```swift
    /// let s0 = PassthroughSubject<Int, Never>()
    /// let s1 = PassthroughSubject<Int, Never>()
    /// let s2 = PassthroughSubject<Int, Never>()
    /// let s3 = PassthroughSubject<Int, Never>()
    /// let c = s0.combineLatest(s1, s2, s3) { $0 + $1 + $2 + $3 }.sink { print($0) }
    /// s0.send(1); s1.send(2); s2.send(3); s3.send(4); s0.send(5)
    /// // Prints: "10 14"
    /// ```
    @inlinable
    public func combineLatest<P: Publisher, Q: Publisher, R: Publisher, T>(_ publisher1: P, _ publisher2: Q, _ publisher3: R, _ transform: @escaping (Output, P.Output, Q.Output, R.Output) -> T)
        -> Publishers.Map<Publishers.CombineLatest4<Self, P, Q, R>, T>
        where Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure
    {
        Publishers.CombineLatest4(self, publisher1, publisher2, publisher3).map { transform($0.0, $0.1, $0.2, $0.3) }
    }
}

extension Publishers {
    /// A publisher that receives and combines the latest elements from
    /// two publishers.
    ///
    /// Publishes a tuple of the most recent value of each upstream whenever
    /// any of them publishes, once every upstream has published at least one
    /// value. Finishes when every upstream has finished; the first failure
    /// cancels the other upstreams and fails.
    ///
    /// Demand: every request is passed to every upstream. A tuple goes out
    /// only while the downstream has demand; a value that arrives without
    /// demand just replaces its upstream's latest value, so one value per
    /// upstream is kept and nothing queues up.
    ///
    /// Threading: upstreams may publish on any threads; tuples go downstream
    /// one at a time, and `cancel()` waits for a tuple being delivered on
    /// another thread.
    ///
    /// ```swift
    /// let c = Publishers.CombineLatest([1, 11].publisher, [2, 12].publisher).sink { print($0) }
    /// // Prints: "(11, 2)", "(11, 12)"
    /// ```
    public struct CombineLatest<A: Publisher, B: Publisher>: Publisher
        where A.Failure == B.Failure
    {
        /// A tuple of one element of each upstream.
        public typealias Output = (A.Output, B.Output)
        /// The upstreams' common failure type.
        public typealias Failure = A.Failure

        /// A publisher to combine.
        public let a: A

        /// A second publisher to combine.
        public let b: B

        /// Creates a publisher that combines the latest elements of two upstream publishers.
        ///
        /// ```swift
        /// let p = Publishers.CombineLatest(Just(1), Just(2))
        /// ```
        @inlinable
        public init(_ a: A, _ b: B) {
            self.a = a
            self.b = b
        }

        /// Subscribes each upstream in order, then hands `subscriber` its
        /// subscription (Combine's order) and a completion that came before.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            typealias Values = (A.Output?, B.Output?)
            let inner = CombineLatestInner<Values, S>(
                downstream: subscriber, count: 2, values: (nil, nil),
                combine: { values in
                    guard let a = values.0, let b = values.1 else { return nil }
                    return (a, b)
                })
            a.receive(subscriber: inner.side(0, store: { (values: inout Values, value: A.Output) in values.0 = value }))
            b.receive(subscriber: inner.side(1, store: { (values: inout Values, value: B.Output) in values.1 = value }))
            inner.handOverSubscription()
        }
    }

    /// A publisher that receives and combines the latest elements from
    /// three publishers.
    ///
    /// Publishes a tuple of the most recent value of each upstream whenever
    /// any of them publishes, once every upstream has published at least one
    /// value. Finishes when every upstream has finished; the first failure
    /// cancels the other upstreams and fails.
    ///
    /// Demand: every request is passed to every upstream. A tuple goes out
    /// only while the downstream has demand; a value that arrives without
    /// demand just replaces its upstream's latest value, so one value per
    /// upstream is kept and nothing queues up.
    ///
    /// Threading: upstreams may publish on any threads; tuples go downstream
    /// one at a time, and `cancel()` waits for a tuple being delivered on
    /// another thread.
    ///
    /// ```swift
    /// let c = Publishers.CombineLatest3([1, 11].publisher, [2, 12].publisher, [3, 13].publisher).sink { print($0) }
    /// // Prints: "(11, 12, 3)", "(11, 12, 13)"
    /// ```
    public struct CombineLatest3<A: Publisher, B: Publisher, C: Publisher>: Publisher
        where A.Failure == B.Failure, B.Failure == C.Failure
    {
        /// A tuple of one element of each upstream.
        public typealias Output = (A.Output, B.Output, C.Output)
        /// The upstreams' common failure type.
        public typealias Failure = A.Failure

        /// A publisher to combine.
        public let a: A

        /// A second publisher to combine.
        public let b: B

        /// A third publisher to combine.
        public let c: C

        /// Creates a publisher that combines the latest elements of three upstream publishers.
        ///
        /// ```swift
        /// let p = Publishers.CombineLatest3(Just(1), Just(2), Just(3))
        /// ```
        @inlinable
        public init(_ a: A, _ b: B, _ c: C) {
            self.a = a
            self.b = b
            self.c = c
        }

        /// Subscribes each upstream in order, then hands `subscriber` its
        /// subscription (Combine's order) and a completion that came before.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            typealias Values = (A.Output?, B.Output?, C.Output?)
            let inner = CombineLatestInner<Values, S>(
                downstream: subscriber, count: 3, values: (nil, nil, nil),
                combine: { values in
                    guard let a = values.0, let b = values.1, let c = values.2 else { return nil }
                    return (a, b, c)
                })
            a.receive(subscriber: inner.side(0, store: { (values: inout Values, value: A.Output) in values.0 = value }))
            b.receive(subscriber: inner.side(1, store: { (values: inout Values, value: B.Output) in values.1 = value }))
            c.receive(subscriber: inner.side(2, store: { (values: inout Values, value: C.Output) in values.2 = value }))
            inner.handOverSubscription()
        }
    }

    /// A publisher that receives and combines the latest elements from
    /// four publishers.
    ///
    /// Publishes a tuple of the most recent value of each upstream whenever
    /// any of them publishes, once every upstream has published at least one
    /// value. Finishes when every upstream has finished; the first failure
    /// cancels the other upstreams and fails.
    ///
    /// Demand: every request is passed to every upstream. A tuple goes out
    /// only while the downstream has demand; a value that arrives without
    /// demand just replaces its upstream's latest value, so one value per
    /// upstream is kept and nothing queues up.
    ///
    /// Threading: upstreams may publish on any threads; tuples go downstream
    /// one at a time, and `cancel()` waits for a tuple being delivered on
    /// another thread.
    ///
    /// ```swift
    /// let c = Publishers.CombineLatest4([1, 11].publisher, [2, 12].publisher, [3, 13].publisher, [4, 14].publisher).sink { print($0) }
    /// // Prints: "(11, 12, 13, 4)", "(11, 12, 13, 14)"
    /// ```
    public struct CombineLatest4<A: Publisher, B: Publisher, C: Publisher, D: Publisher>: Publisher
        where A.Failure == B.Failure, B.Failure == C.Failure, C.Failure == D.Failure
    {
        /// A tuple of one element of each upstream.
        public typealias Output = (A.Output, B.Output, C.Output, D.Output)
        /// The upstreams' common failure type.
        public typealias Failure = A.Failure

        /// A publisher to combine.
        public let a: A

        /// A second publisher to combine.
        public let b: B

        /// A third publisher to combine.
        public let c: C

        /// A fourth publisher to combine.
        public let d: D

        /// Creates a publisher that combines the latest elements of four upstream publishers.
        ///
        /// ```swift
        /// let p = Publishers.CombineLatest4(Just(1), Just(2), Just(3), Just(4))
        /// ```
        @inlinable
        public init(_ a: A, _ b: B, _ c: C, _ d: D) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
        }

        /// Subscribes each upstream in order, then hands `subscriber` its
        /// subscription (Combine's order) and a completion that came before.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            typealias Values = (A.Output?, B.Output?, C.Output?, D.Output?)
            let inner = CombineLatestInner<Values, S>(
                downstream: subscriber, count: 4, values: (nil, nil, nil, nil),
                combine: { values in
                    guard let a = values.0, let b = values.1, let c = values.2, let d = values.3 else { return nil }
                    return (a, b, c, d)
                })
            a.receive(subscriber: inner.side(0, store: { (values: inout Values, value: A.Output) in values.0 = value }))
            b.receive(subscriber: inner.side(1, store: { (values: inout Values, value: B.Output) in values.1 = value }))
            c.receive(subscriber: inner.side(2, store: { (values: inout Values, value: C.Output) in values.2 = value }))
            d.receive(subscriber: inner.side(3, store: { (values: inout Values, value: D.Output) in values.3 = value }))
            inner.handOverSubscription()
        }
    }
}

extension Publishers.CombineLatest: Equatable where A: Equatable, B: Equatable {}
extension Publishers.CombineLatest3: Equatable where A: Equatable, B: Equatable, C: Equatable {}
extension Publishers.CombineLatest4: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable {}
