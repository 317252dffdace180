extension Publisher {
    /// Publishes the value of a key path.
    ///
    /// Stateless: the subscription is passed through.
    ///
    /// ```swift
    /// struct Point { let x, y: Int }
    /// let c = [Point(x: 1, y: 2)].publisher.map(\.x).sink { print($0) }
    /// // Prints: "1"
    /// ```
    @inlinable
    public func map<T>(_ keyPath: KeyPath<Output, T>) -> Publishers.MapKeyPath<Self, T> {
        Publishers.MapKeyPath(upstream: self, keyPath: keyPath)
    }

    /// Publishes the values of two key paths as a tuple.
    ///
    /// ```swift
    /// struct Point { let x, y: Int }
    /// let c = [Point(x: 1, y: 2)].publisher.map(\.x, \.y).sink { print($0) }
    /// // Prints: "(1, 2)"
    /// ```
    @inlinable
    public func map<T0, T1>(_ keyPath0: KeyPath<Output, T0>,
                            _ keyPath1: KeyPath<Output, T1>) -> Publishers.MapKeyPath2<Self, T0, T1> {
        Publishers.MapKeyPath2(upstream: self, keyPath0: keyPath0, keyPath1: keyPath1)
    }

    /// Publishes the values of three key paths as a tuple.
    ///
    /// ```swift
    /// struct Point3 { let x, y, z: Int }
    /// let c = [Point3(x: 1, y: 2, z: 3)].publisher.map(\.x, \.y, \.z).sink { print($0) }
    /// // Prints: "(1, 2, 3)"
    /// ```
    @inlinable
    public func map<T0, T1, T2>(_ keyPath0: KeyPath<Output, T0>,
                                _ keyPath1: KeyPath<Output, T1>,
                                _ keyPath2: KeyPath<Output, T2>) -> Publishers.MapKeyPath3<Self, T0, T1, T2> {
        Publishers.MapKeyPath3(upstream: self, keyPath0: keyPath0, keyPath1: keyPath1, keyPath2: keyPath2)
    }
}

extension Publishers {
    /// A publisher that publishes the value of a key path.
    ///
    /// Threading: values pass on the upstream's thread.
    ///
    /// ```swift
    /// let lengths = Publishers.MapKeyPath(upstream: ["ab"].publisher, keyPath: \.count)
    /// ```
    public struct MapKeyPath<Upstream: Publisher, Output>: Publisher {
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The key path of a property on the upstream's elements.
        public let keyPath: KeyPath<Upstream.Output, Output>

        /// Creates a publisher of `keyPath` read from each element of
        /// `upstream`.
        // Internal: Combine's MapKeyPath types have no public initialiser
        // (only `map(_:)` with key paths makes them).
        @inlinable
        internal init(upstream: Upstream, keyPath: KeyPath<Upstream.Output, Output>) {
            self.upstream = upstream
            self.keyPath = keyPath
        }

        /// Subscribes a stateless inner subscriber to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let keyPath = self.keyPath
            upstream.receive(subscriber: KeyPathInner<Upstream.Output, S>(
                downstream: subscriber, name: "ValueForKey", keyPaths: (keyPath, nil, nil)
            ) {
                $0[keyPath: keyPath]
            })
        }
    }

    /// A publisher that publishes the values of two key paths as a tuple.
    ///
    /// Threading: values pass on the upstream's thread.
    ///
    /// ```swift
    /// let pairs = Publishers.MapKeyPath2(upstream: ["ab"].publisher, keyPath0: \.count, keyPath1: \.first)
    /// ```
    public struct MapKeyPath2<Upstream: Publisher, Output0, Output1>: Publisher {
        /// The two values, in key path order.
        public typealias Output = (Output0, Output1)
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The key path of a property on the upstream's elements.
        public let keyPath0: KeyPath<Upstream.Output, Output0>

        /// The key path of another property on the upstream's elements.
        public let keyPath1: KeyPath<Upstream.Output, Output1>

        /// Creates a publisher of both key paths read from each element of
        /// `upstream`.
        // Internal: Combine's MapKeyPath types have no public initialiser
        // (only `map(_:)` with key paths makes them).
        @inlinable
        internal init(upstream: Upstream, keyPath0: KeyPath<Upstream.Output, Output0>,
                      keyPath1: KeyPath<Upstream.Output, Output1>) {
            self.upstream = upstream
            self.keyPath0 = keyPath0
            self.keyPath1 = keyPath1
        }

        /// Subscribes a stateless inner subscriber to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let keyPath0 = self.keyPath0
            let keyPath1 = self.keyPath1
            upstream.receive(subscriber: KeyPathInner<Upstream.Output, S>(
                downstream: subscriber, name: "ValueForKeys", keyPaths: (keyPath0, keyPath1, nil)
            ) {
                ($0[keyPath: keyPath0], $0[keyPath: keyPath1])
            })
        }
    }

    /// A publisher that publishes the values of three key paths as a tuple.
    ///
    /// Threading: values pass on the upstream's thread.
    ///
    /// ```swift
    /// let triples = Publishers.MapKeyPath3(upstream: points.publisher, keyPath0: \.x, keyPath1: \.y, keyPath2: \.z)
    /// ```
    public struct MapKeyPath3<Upstream: Publisher, Output0, Output1, Output2>: Publisher {
        /// The three values, in key path order.
        public typealias Output = (Output0, Output1, Output2)
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The key path of a property on the upstream's elements.
        public let keyPath0: KeyPath<Upstream.Output, Output0>

        /// The key path of a second property on the upstream's elements.
        public let keyPath1: KeyPath<Upstream.Output, Output1>

        /// The key path of a third property on the upstream's elements.
        public let keyPath2: KeyPath<Upstream.Output, Output2>

        /// Creates a publisher of the three key paths read from each element
        /// of `upstream`.
        // Internal: Combine's MapKeyPath types have no public initialiser
        // (only `map(_:)` with key paths makes them).
        @inlinable
        internal init(upstream: Upstream, keyPath0: KeyPath<Upstream.Output, Output0>,
                      keyPath1: KeyPath<Upstream.Output, Output1>, keyPath2: KeyPath<Upstream.Output, Output2>) {
            self.upstream = upstream
            self.keyPath0 = keyPath0
            self.keyPath1 = keyPath1
            self.keyPath2 = keyPath2
        }

        /// Subscribes a stateless inner subscriber to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let keyPath0 = self.keyPath0
            let keyPath1 = self.keyPath1
            let keyPath2 = self.keyPath2
            upstream.receive(subscriber: KeyPathInner<Upstream.Output, S>(
                downstream: subscriber, name: "ValueForKeys", keyPaths: (keyPath0, keyPath1, keyPath2)
            ) {
                ($0[keyPath: keyPath0], $0[keyPath: keyPath1], $0[keyPath: keyPath2])
            })
        }
    }
}

/// Reads the key paths of each element and forwards the result; the
/// subscription goes straight through. Top level for the reason given on
/// `MapInner`.
@usableFromInline
internal struct KeyPathInner<Input, Downstream: Subscriber>: Subscriber, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible
{
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let downstream: Downstream
    @usableFromInline let read: (Input) -> Downstream.Input
    @usableFromInline let name: StaticString
    /// Only for `customMirror` (Combine reflects the key paths): the first,
    /// and the second and third when there are that many. Inline, so
    /// subscribing allocates nothing for them.
    @usableFromInline let keyPaths: (AnyKeyPath, AnyKeyPath?, AnyKeyPath?)
    @usableFromInline let combineIdentifier = CombineIdentifier()

    @inlinable
    init(downstream: Downstream, name: StaticString, keyPaths: (AnyKeyPath, AnyKeyPath?, AnyKeyPath?),
         read: @escaping (Input) -> Downstream.Input) {
        self.downstream = downstream
        self.name = name
        self.keyPaths = keyPaths
        self.read = read
    }

    @inlinable
    func receive(subscription: any Subscription) {
        downstream.receive(subscription: subscription)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        downstream.receive(read(input))
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        downstream.receive(completion: completion)
    }

    @usableFromInline var description: String { name.description }
    /// Combine's children: `keyPath` for one key path, `keyPath0`... for
    /// several.
    @usableFromInline var customMirror: Mirror {
        guard let second = keyPaths.1 else {
            return Mirror(self, children: ["keyPath": keyPaths.0])
        }
        var children: [Mirror.Child] = [("keyPath0", keyPaths.0), ("keyPath1", second)]
        if let third = keyPaths.2 { children.append(("keyPath2", third)) }
        return Mirror(self, children: children)
    }
    @usableFromInline var playgroundDescription: Any { description }
}
