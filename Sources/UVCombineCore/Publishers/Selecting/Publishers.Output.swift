extension Publisher {
    /// Republishes elements up to the specified maximum count.
    ///
    /// The same operator as `output(in: 0..<maxLength)`: after the last
    /// element the upstream is cancelled and the publisher finishes at once.
    ///
    /// ```swift
    /// let c = [1, 2, 3, 4].publisher.prefix(2).sink { print($0) }
    /// // Prints: "1 2"
    /// ```
    @inlinable
    public func prefix(_ maxLength: Int) -> Publishers.Output<Self> {
        output(in: ..<maxLength)
    }

    /// Publishes a specific element, indicated by its index in the sequence
    /// of published elements.
    ///
    /// If the upstream completes before publishing that element, nothing is
    /// published.
    ///
    /// ```swift
    /// let c = ["a", "b", "c"].publisher.output(at: 1).sink { print($0) }
    /// // Prints: "b"
    /// ```
    @inlinable
    public func output(at index: Int) -> Publishers.Output<Self> {
        output(in: index...index)
    }

    /// Publishes elements specified by their range in the sequence of
    /// published elements.
    ///
    /// Elements before the range are dropped (each answered with `.max(1)`
    /// upstream, so downstream demand counts delivered elements only). After
    /// the last element of the range the upstream is cancelled and the
    /// publisher finishes. A negative bound traps.
    ///
    /// ```swift
    /// let c = (0..<10).publisher.output(in: 3...5).sink { print($0) }
    /// // Prints: "3 4 5"
    /// ```
    @inlinable
    public func output<R: RangeExpression>(in range: R) -> Publishers.Output<Self> where R.Bound == Int {
        Publishers.Output(upstream: self, range: range.relative(to: 0..<Int.max))
    }
}

extension Just {
    /// Keeps the value if `maxLength` is at least one, at once, as Combine
    /// does for `Just`. A negative length traps.
    ///
    /// ```swift
    /// Just(1).prefix(0) // Optional<Int>.none.publisher
    /// ```
    @inlinable
    public func prefix(_ maxLength: Int) -> Optional<Output>.Publisher {
        if maxLength < 0 { violation("prefix(_:): maxLength must not be negative") }
        return Optional<Output>.Publisher(maxLength > 0 ? output : nil)
    }

    /// Keeps the value if `index` is zero, at once. A negative index traps.
    ///
    /// ```swift
    /// Just(1).output(at: 0) // Optional(1).publisher
    /// ```
    @inlinable
    public func output(at index: Int) -> Optional<Output>.Publisher {
        if index < 0 { violation("output(at:): index must not be negative") }
        return Optional<Output>.Publisher(index == 0 ? output : nil)
    }

    /// Keeps the value if `range` starts at index zero, at once; any other
    /// range gives an empty publisher, and none traps.
    ///
    /// As Combine answers (OpenCombine's `JustTests.testOutputInRangeOperatorSpecialization`,
    /// written against Combine): `0..<0` keeps the value although it is
    /// empty, and `-10..<10` does not although it contains zero.
    ///
    /// ```swift
    /// Just(1).output(in: 0..<0) // Optional(1).publisher
    /// Just(1).output(in: 1...)  // Optional<Int>.none.publisher
    /// ```
    @inlinable
    public func output<R: RangeExpression>(in range: R) -> Optional<Output>.Publisher where R.Bound == Int {
        let range = range.relative(to: 0..<Int.max)
        return Optional<Output>.Publisher(range.lowerBound == 0 ? output : nil)
    }
}

extension Optional.Publisher {
    /// Keeps the value, if any, when `maxLength` is at least one, at once.
    ///
    /// ```swift
    /// Optional(1).publisher.prefix(1) // Optional(1).publisher
    /// ```
    @inlinable
    public func prefix(_ maxLength: Int) -> Optional<Output>.Publisher {
        if maxLength < 0 { violation("prefix(_:): maxLength must not be negative") }
        return Optional<Output>.Publisher(maxLength > 0 ? output : nil)
    }

    /// Keeps the value, if any, when `index` is zero, at once.
    ///
    /// ```swift
    /// Optional(1).publisher.output(at: 1) // Optional<Int>.none.publisher
    /// ```
    @inlinable
    public func output(at index: Int) -> Optional<Output>.Publisher {
        if index < 0 { violation("output(at:): index must not be negative") }
        return Optional<Output>.Publisher(index == 0 ? output : nil)
    }

    /// Keeps the value, if any, when `range` contains index zero, at once.
    ///
    /// ```swift
    /// Optional(1).publisher.output(in: 0..<3) // Optional(1).publisher
    /// ```
    @inlinable
    public func output<R: RangeExpression>(in range: R) -> Optional<Output>.Publisher where R.Bound == Int {
        let range = range.relative(to: 0..<Int.max)
        if range.lowerBound < 0 { violation("output(in:): lowerBound must not be negative") }
        return Optional<Output>.Publisher(range.contains(0) ? output : nil)
    }
}

extension Publishers {
    /// A publisher that publishes elements specified by a range in the
    /// sequence of published elements.
    ///
    /// Threading: values pass on the upstream's thread; the subscription
    /// describes itself as `Output`.
    ///
    /// ```swift
    /// let middle = Publishers.Output(upstream: (0..<10).publisher, range: 3..<6)
    /// ```
    public struct Output<Upstream: Publisher>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The range of elements to publish.
        public let range: CountableRange<Int>

        /// Creates a publisher that publishes the elements of `upstream` at
        /// the positions in `range`. Traps if a bound is negative.
        @inlinable
        public init(upstream: Upstream, range: CountableRange<Int>) {
            if range.lowerBound < 0 { violation("Publishers.Output: lowerBound must not be negative") }
            if range.upperBound < 0 { violation("Publishers.Output: upperBound must not be negative") }
            self.upstream = upstream
            self.range = range
        }

        /// Subscribes an `Output` subscription to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: FilterSubscription(downstream: subscriber, logic: Selection(range: range),
                                                            initial: 0))
        }
    }
}

extension Publishers.Output: Equatable where Upstream: Equatable {}

extension Publishers.Output {
    /// Counts the values seen and keeps those whose index is in the range.
    @usableFromInline
    internal struct Selection: FilterLogic {
        @usableFromInline typealias Input = Upstream.Output
        /// The index of the next value.
        @usableFromInline typealias State = Int
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let range: CountableRange<Int>

        @inlinable
        init(range: CountableRange<Int>) {
            self.range = range
        }

        @inlinable
        static var name: String { "Output" }

        @inlinable
        static var rules: FilterRules { .forwarding }

        @inlinable
        func mirrorChildren(downstream: Any, state _: State) -> [Mirror.Child] {
            []
        }

        @inlinable
        func step(_ index: inout Int, _ input: Upstream.Output) -> FilterStep<Upstream.Failure> {
            let current = index
            index &+= 1
            if current < range.lowerBound { return .drop }
            if current >= range.upperBound { return .finish } // an empty range
            return current == range.upperBound &- 1 ? .publishAndFinish : .publish
        }

        @inlinable
        func failure(_ error: Upstream.Failure) -> Upstream.Failure { error }
    }
}
