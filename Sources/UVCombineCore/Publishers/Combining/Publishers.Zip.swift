extension Publisher {
    /// Combines elements from another publisher and delivers groups of elements as
    /// tuples: the first element of each publisher, then the second, and so
    /// on.
    ///
    /// Requests are passed to every upstream, so each upstream's queue holds
    /// at most the downstream's outstanding demand (with `.unlimited`, the
    /// elements a faster upstream is ahead by). Finishes as soon as an
    /// upstream has finished and no tuple can be completed any more,
    /// cancelling the other upstreams; the first failure cancels the other
    /// upstreams and fails.
    ///
    /// Threading: the upstreams may publish on any threads; tuples go
    /// downstream one at a time.
    ///
    /// ```swift
    /// let s0 = PassthroughSubject<Int, Never>()
    /// let s1 = PassthroughSubject<Int, Never>()
    /// let c = s0.zip(s1).sink { print($0) }
    /// s0.send(1); s1.send(2); s0.send(3)
    /// // Prints: "(1, 2)"
    /// ```
    @inlinable
    public func zip<P: Publisher>(_ other: P) -> Publishers.Zip<Self, P>
        where Failure == P.Failure
    {
        Publishers.Zip(self, other)
    }

    /// Combines elements from another publisher and delivers the result of
    /// `transform` on each group of elements (the first of each, then the
    /// second, …).
    ///
    /// The same rules as the tuple-publishing `zip` apply; `transform` runs
    /// outside every lock, on the thread that delivers.
    ///
    /// ```swift
    /// let s0 = PassthroughSubject<Int, Never>()
    /// let s1 = PassthroughSubject<Int, Never>()
    /// let c = s0.zip(s1) { $0 + $1 }.sink { print($0) }
    /// s0.send(1); s1.send(2); s0.send(3)
    /// // Prints: "3"
    /// ```
    @inlinable
    public func zip<P: Publisher, T>(_ other: P, _ transform: @escaping (Output, P.Output) -> T)
        -> Publishers.Map<Publishers.Zip<Self, P>, T>
        where Failure == P.Failure
    {
        Publishers.Zip(self, other).map { transform($0.0, $0.1) }
    }

    /// Combines elements from two more publishers and delivers groups of elements as
    /// tuples: the first element of each publisher, then the second, and so
    /// on.
    ///
    /// Requests are passed to every upstream, so each upstream's queue holds
    /// at most the downstream's outstanding demand (with `.unlimited`, the
    /// elements a faster upstream is ahead by). Finishes as soon as an
    /// upstream has finished and no tuple can be completed any more,
    /// cancelling the other upstreams; the first failure cancels the other
    /// upstreams and fails.
    ///
    /// Threading: the upstreams may publish on any threads; tuples go
    /// downstream one at a time.
    ///
    /// ```swift
    /// let s0 = PassthroughSubject<Int, Never>()
    /// let s1 = PassthroughSubject<Int, Never>()
    /// let s2 = PassthroughSubject<Int, Never>()
    /// let c = s0.zip(s1, s2).sink { print($0) }
    /// s0.send(1); s1.send(2); s2.send(3); s0.send(4)
    /// // Prints: "(1, 2, 3)"
    /// ```
    @inlinable
    public func zip<P: Publisher, Q: Publisher>(_ publisher1: P, _ publisher2: Q) -> Publishers.Zip3<Self, P, Q>
        where Failure == P.Failure, P.Failure == Q.Failure
    {
        Publishers.Zip3(self, publisher1, publisher2)
    }

    /// Combines elements from two more publishers and delivers the result of
    /// `transform` on each group of elements (the first of each, then the
    /// second, …).
    ///
    /// The same rules as the tuple-publishing `zip` apply; `transform` runs
    /// outside every lock, on the thread that delivers.
    ///
    /// ```swift
    /// let s0 = PassthroughSubject<Int, Never>()
    /// let s1 = PassthroughSubject<Int, Never>()
    /// let s2 = PassthroughSubject<Int, Never>()
    /// let c = s0.zip(s1, s2) { $0 + $1 + $2 }.sink { print($0) }
    /// s0.send(1); s1.send(2); s2.send(3); s0.send(4)
    /// // Prints: "6"
    /// ```
    @inlinable
    public func zip<P: Publisher, Q: Publisher, T>(_ publisher1: P, _ publisher2: Q, _ transform: @escaping (Output, P.Output, Q.Output) -> T)
        -> Publishers.Map<Publishers.Zip3<Self, P, Q>, T>
        where Failure == P.Failure, P.Failure == Q.Failure
    {
        Publishers.Zip3(self, publisher1, publisher2).map { transform($0.0, $0.1, $0.2) }
    }

    /// Combines elements from three more publishers and delivers groups of elements as
    /// tuples: the first element of each publisher, then the second, and so
    /// on.
    ///
    /// Requests are passed to every upstream, so each upstream's queue holds
    /// at most the downstream's outstanding demand (with `.unlimited`, the
    /// elements a faster upstream is ahead by). Finishes as soon as an
    /// upstream has finished and no tuple can be completed any more,
    /// cancelling the other upstreams; the first failure cancels the other
    /// upstreams and fails.
    ///
    /// Threading: the upstreams may publish on any threads; tuples go
    /// downstream one at a time.
    ///
    /// ```swift
    /// let s0 = PassthroughSubject<Int, Never>()
    /// let s1 = PassthroughSubject<Int, Never>()
    /// let s2 = PassthroughSubject<Int, Never>()
    /// let s3 = PassthroughSubject<Int, Never>()
    /// let c = s0.zip(s1, s2, s3).sink { print($0) }
    /// s0.send(1); s1.send(2); s2.send(3); s3.send(4); s0.send(5)
    /// // Prints: "(1, 2, 3, 4)"
    /// ```
    @inlinable
    public func zip<P: Publisher, Q: Publisher, R: Publisher>(_ publisher1: P, _ publisher2: Q, _ publisher3: R) -> Publishers.Zip4<Self, P, Q, R>
        where Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure
    {
        Publishers.Zip4(self, publisher1, publisher2, publisher3)
    }

    /// Combines elements from three more publishers and delivers the result of
    /// `transform` on each group of elements (the first of each, then the
    /// second, …).
    ///
    /// The same rules as the tuple-publishing `zip` apply; `transform` runs
    /// outside every lock, on the thread that delivers.
    ///
    /// ```swift
    /// let s0 = PassthroughSubject<Int, Never>()
    /// let s1 = PassthroughSubject<Int, Never>()
    /// let s2 = PassthroughSubject<Int, Never>()
    /// let s3 = PassthroughSubject<Int, Never>()
    /// let c = s0.zip(s1, s2, s3) { $0 + $1 + $2 + $3 }.sink { print($0) }
    /// s0.send(1); s1.send(2); s2.send(3); s3.send(4); s0.send(5)
    /// // Prints: "10"
    /// ```
    @inlinable
    public func zip<P: Publisher, Q: Publisher, R: Publisher, T>(_ publisher1: P, _ publisher2: Q, _ publisher3: R, _ transform: @escaping (Output, P.Output, Q.Output, R.Output) -> T)
        -> Publishers.Map<Publishers.Zip4<Self, P, Q, R>, T>
        where Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure
    {
        Publishers.Zip4(self, publisher1, publisher2, publisher3).map { transform($0.0, $0.1, $0.2, $0.3) }
    }
}

extension Publishers {
    /// A publisher created by applying the zip function to two upstream
    /// publishers.
    ///
    /// Publishes a tuple of the n-th value of every upstream once each has
    /// published its n-th value. Finishes as soon as an upstream has finished
    /// and its queue is empty, cancelling the others; the first failure
    /// cancels the other upstreams and fails.
    ///
    /// Demand: every request is passed to every upstream, so each upstream is
    /// asked for exactly as many values as the downstream asked for tuples,
    /// and each upstream's queue holds at most the downstream's outstanding
    /// demand. With `.unlimited` demand a faster upstream's values wait for
    /// their partners (the queue holds how far it is ahead), as in Combine.
    /// Like Combine's zip it counts no demand itself: a tuple goes out as
    /// soon as every upstream has a value waiting, so values an upstream
    /// sends before its subscription are zipped and forwarded too.
    ///
    /// Threading: upstreams may publish on any threads; tuples go downstream
    /// one at a time, and `cancel()` waits for a tuple being delivered on
    /// another thread.
    ///
    /// ```swift
    /// let c = Publishers.Zip([1, 11].publisher, [2, 12].publisher).sink { print($0) }
    /// // Prints: "(1, 2)", "(11, 12)"
    /// ```
    public struct Zip<A: Publisher, B: Publisher>: Publisher
        where A.Failure == B.Failure
    {
        /// A tuple of one element of each upstream.
        public typealias Output = (A.Output, B.Output)
        /// The upstreams' common failure type.
        public typealias Failure = A.Failure

        /// A publisher to zip.
        public let a: A

        /// A second publisher to zip.
        public let b: B

        /// Creates a publisher that zips two upstream publishers.
        ///
        /// ```swift
        /// let p = Publishers.Zip(Just(1), Just(2))
        /// ```
        @inlinable
        public init(_ a: A, _ b: B) {
            self.a = a
            self.b = b
        }

        /// Subscribes each upstream in order. `subscriber` gets its
        /// subscription once every upstream has sent its own, as in Combine.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            typealias Queues = (RingBuffer<A.Output>, RingBuffer<B.Output>)
            let inner = ZipInner<Queues, S>(
                downstream: subscriber, count: 2, queues: (RingBuffer(), RingBuffer()),
                take: { queues in
                    guard !queues.0.isEmpty, !queues.1.isEmpty else { return nil }
                    return (queues.0.popFirst().unsafelyUnwrapped, queues.1.popFirst().unsafelyUnwrapped)
                },
                isEmpty: { queues, index in
                    switch index {
                    case 0: return queues.0.isEmpty
                    default: return queues.1.isEmpty
                    }
                })
            a.receive(subscriber: inner.side(0, store: { (queues: inout Queues, value: A.Output) in queues.0.append(value) }))
            b.receive(subscriber: inner.side(1, store: { (queues: inout Queues, value: B.Output) in queues.1.append(value) }))
        }
    }

    /// A publisher created by applying the zip function to three upstream
    /// publishers.
    ///
    /// Publishes a tuple of the n-th value of every upstream once each has
    /// published its n-th value. Finishes as soon as an upstream has finished
    /// and its queue is empty, cancelling the others; the first failure
    /// cancels the other upstreams and fails.
    ///
    /// Demand: every request is passed to every upstream, so each upstream is
    /// asked for exactly as many values as the downstream asked for tuples,
    /// and each upstream's queue holds at most the downstream's outstanding
    /// demand. With `.unlimited` demand a faster upstream's values wait for
    /// their partners (the queue holds how far it is ahead), as in Combine.
    /// Like Combine's zip it counts no demand itself: a tuple goes out as
    /// soon as every upstream has a value waiting, so values an upstream
    /// sends before its subscription are zipped and forwarded too.
    ///
    /// Threading: upstreams may publish on any threads; tuples go downstream
    /// one at a time, and `cancel()` waits for a tuple being delivered on
    /// another thread.
    ///
    /// ```swift
    /// let c = Publishers.Zip3([1, 11].publisher, [2, 12].publisher, [3, 13].publisher).sink { print($0) }
    /// // Prints: "(1, 2, 3)", "(11, 12, 13)"
    /// ```
    public struct Zip3<A: Publisher, B: Publisher, C: Publisher>: Publisher
        where A.Failure == B.Failure, B.Failure == C.Failure
    {
        /// A tuple of one element of each upstream.
        public typealias Output = (A.Output, B.Output, C.Output)
        /// The upstreams' common failure type.
        public typealias Failure = A.Failure

        /// A publisher to zip.
        public let a: A

        /// A second publisher to zip.
        public let b: B

        /// A third publisher to zip.
        public let c: C

        /// Creates a publisher that zips three upstream publishers.
        ///
        /// ```swift
        /// let p = Publishers.Zip3(Just(1), Just(2), Just(3))
        /// ```
        @inlinable
        public init(_ a: A, _ b: B, _ c: C) {
            self.a = a
            self.b = b
            self.c = c
        }

        /// Subscribes each upstream in order. `subscriber` gets its
        /// subscription once every upstream has sent its own, as in Combine.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            typealias Queues = (RingBuffer<A.Output>, RingBuffer<B.Output>, RingBuffer<C.Output>)
            let inner = ZipInner<Queues, S>(
                downstream: subscriber, count: 3, queues: (RingBuffer(), RingBuffer(), RingBuffer()),
                take: { queues in
                    guard !queues.0.isEmpty, !queues.1.isEmpty, !queues.2.isEmpty else { return nil }
                    return (queues.0.popFirst().unsafelyUnwrapped, queues.1.popFirst().unsafelyUnwrapped, queues.2.popFirst().unsafelyUnwrapped)
                },
                isEmpty: { queues, index in
                    switch index {
                    case 0: return queues.0.isEmpty
                    case 1: return queues.1.isEmpty
                    default: return queues.2.isEmpty
                    }
                })
            a.receive(subscriber: inner.side(0, store: { (queues: inout Queues, value: A.Output) in queues.0.append(value) }))
            b.receive(subscriber: inner.side(1, store: { (queues: inout Queues, value: B.Output) in queues.1.append(value) }))
            c.receive(subscriber: inner.side(2, store: { (queues: inout Queues, value: C.Output) in queues.2.append(value) }))
        }
    }

    /// A publisher created by applying the zip function to four upstream
    /// publishers.
    ///
    /// Publishes a tuple of the n-th value of every upstream once each has
    /// published its n-th value. Finishes as soon as an upstream has finished
    /// and its queue is empty, cancelling the others; the first failure
    /// cancels the other upstreams and fails.
    ///
    /// Demand: every request is passed to every upstream, so each upstream is
    /// asked for exactly as many values as the downstream asked for tuples,
    /// and each upstream's queue holds at most the downstream's outstanding
    /// demand. With `.unlimited` demand a faster upstream's values wait for
    /// their partners (the queue holds how far it is ahead), as in Combine.
    /// Like Combine's zip it counts no demand itself: a tuple goes out as
    /// soon as every upstream has a value waiting, so values an upstream
    /// sends before its subscription are zipped and forwarded too.
    ///
    /// Threading: upstreams may publish on any threads; tuples go downstream
    /// one at a time, and `cancel()` waits for a tuple being delivered on
    /// another thread.
    ///
    /// ```swift
    /// let c = Publishers.Zip4([1, 11].publisher, [2, 12].publisher, [3, 13].publisher, [4, 14].publisher).sink { print($0) }
    /// // Prints: "(1, 2, 3, 4)", "(11, 12, 13, 14)"
    /// ```
    public struct Zip4<A: Publisher, B: Publisher, C: Publisher, D: Publisher>: Publisher
        where A.Failure == B.Failure, B.Failure == C.Failure, C.Failure == D.Failure
    {
        /// A tuple of one element of each upstream.
        public typealias Output = (A.Output, B.Output, C.Output, D.Output)
        /// The upstreams' common failure type.
        public typealias Failure = A.Failure

        /// A publisher to zip.
        public let a: A

        /// A second publisher to zip.
        public let b: B

        /// A third publisher to zip.
        public let c: C

        /// A fourth publisher to zip.
        public let d: D

        /// Creates a publisher that zips four upstream publishers.
        ///
        /// ```swift
        /// let p = Publishers.Zip4(Just(1), Just(2), Just(3), Just(4))
        /// ```
        @inlinable
        public init(_ a: A, _ b: B, _ c: C, _ d: D) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
        }

        /// Subscribes each upstream in order. `subscriber` gets its
        /// subscription once every upstream has sent its own, as in Combine.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            typealias Queues = (RingBuffer<A.Output>, RingBuffer<B.Output>, RingBuffer<C.Output>, RingBuffer<D.Output>)
            let inner = ZipInner<Queues, S>(
                downstream: subscriber, count: 4, queues: (RingBuffer(), RingBuffer(), RingBuffer(), RingBuffer()),
                take: { queues in
                    guard !queues.0.isEmpty, !queues.1.isEmpty, !queues.2.isEmpty, !queues.3.isEmpty else { return nil }
                    return (queues.0.popFirst().unsafelyUnwrapped, queues.1.popFirst().unsafelyUnwrapped, queues.2.popFirst().unsafelyUnwrapped, queues.3.popFirst().unsafelyUnwrapped)
                },
                isEmpty: { queues, index in
                    switch index {
                    case 0: return queues.0.isEmpty
                    case 1: return queues.1.isEmpty
                    case 2: return queues.2.isEmpty
                    default: return queues.3.isEmpty
                    }
                })
            a.receive(subscriber: inner.side(0, store: { (queues: inout Queues, value: A.Output) in queues.0.append(value) }))
            b.receive(subscriber: inner.side(1, store: { (queues: inout Queues, value: B.Output) in queues.1.append(value) }))
            c.receive(subscriber: inner.side(2, store: { (queues: inout Queues, value: C.Output) in queues.2.append(value) }))
            d.receive(subscriber: inner.side(3, store: { (queues: inout Queues, value: D.Output) in queues.3.append(value) }))
        }
    }
}

extension Publishers.Zip: Equatable where A: Equatable, B: Equatable {}
extension Publishers.Zip3: Equatable where A: Equatable, B: Equatable, C: Equatable {}
extension Publishers.Zip4: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable {}
