extension Optional {
    /// A publisher that publishes this optional's value to each subscriber
    /// exactly once, or only finishes if it is `nil`.
    ///
    /// ```swift
    /// let c = Optional(3).publisher.sink { print($0) }
    /// // Prints: "3"
    /// ```
    public var publisher: Publisher {
        Publisher(self)
    }

    /// A publisher that publishes an optional value to each subscriber
    /// exactly once, if the optional has a value.
    ///
    /// Unlike ``Just``, it may publish nothing: a `nil` optional finishes
    /// right after the subscription. A value is delivered on the first
    /// request, on the requesting thread, then `.finished` follows.
    /// Subscriptions describe themselves as `Optional`.
    ///
    /// ```swift
    /// let none = Optional<Int>.Publisher(nil) // finishes at once
    /// ```
    public struct Publisher: UVCombineCore.Publisher {
        /// The wrapped type.
        public typealias Output = Wrapped
        /// This publisher never fails.
        public typealias Failure = Never

        /// The optional value to deliver to each subscriber.
        public let output: Wrapped?

        /// Creates a publisher to emit the value of `output`, if any.
        @inlinable
        public init(_ output: Output?) {
            self.output = output
        }

        /// Delivers the value on demand, or finishes at once when `nil`.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Wrapped, S.Failure == Never {
            if let output {
                subscriber.receive(subscription: OnceSubscription(value: output, downstream: subscriber, name: "Optional"))
            } else {
                subscriber.receive(subscription: Subscriptions.empty)
                subscriber.receive(completion: .finished)
            }
        }
    }
}

extension Optional.Publisher: Equatable where Wrapped: Equatable {}
extension Optional.Publisher: Sendable where Wrapped: Sendable {}

// MARK: - Operators applied at once, as Combine specialises them

extension Optional.Publisher {
    /// Transforms the value at once.
    ///
    /// ```swift
    /// Optional(2).publisher.map { $0 * 3 } // Optional(6).publisher
    /// ```
    @inlinable
    public func map<T>(_ transform: (Output) -> T) -> Optional<T>.Publisher {
        Optional<T>.Publisher(output.map(transform))
    }

    /// Keeps the value only if it matches `isIncluded`.
    ///
    /// ```swift
    /// Optional(3).publisher.filter { $0 % 2 == 0 } // Optional<Int>.none.publisher
    /// ```
    @inlinable
    public func filter(_ isIncluded: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(output.flatMap { isIncluded($0) ? $0 : nil })
    }

    /// Transforms the value at once, keeping non-`nil` results only.
    ///
    /// ```swift
    /// Optional("7").publisher.compactMap { Int($0) } // Optional(7).publisher
    /// ```
    @inlinable
    public func compactMap<T>(_ transform: (Output) -> T?) -> Optional<T>.Publisher {
        Optional<T>.Publisher(output.flatMap(transform))
    }

    /// Applies the accumulator to the single value at once.
    ///
    /// ```swift
    /// Optional(2).publisher.scan(10) { $0 + $1 } // Optional(12).publisher
    /// ```
    @inlinable
    public func scan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Optional<T>.Publisher {
        Optional<T>.Publisher(output.map { nextPartialResult(initialResult, $0) })
    }

    /// This publisher never fails; the result is the same publisher.
    ///
    /// ```swift
    /// Optional(1).publisher.replaceError(with: 0) // Optional(1).publisher
    /// ```
    @inlinable
    public func replaceError(with output: Output) -> Optional<Output>.Publisher {
        self
    }
}

extension Just {
    /// Keeps the value only if it matches `isIncluded`, applied at once.
    ///
    /// ```swift
    /// Just(3).filter { $0 > 5 } // Optional<Int>.none.publisher
    /// ```
    @inlinable
    public func filter(_ isIncluded: (Output) -> Bool) -> Optional<Output>.Publisher {
        Optional<Output>.Publisher(isIncluded(output) ? output : nil)
    }

    /// Transforms the value at once, keeping a non-`nil` result only.
    ///
    /// ```swift
    /// Just("7").compactMap { Int($0) } // Optional(7).publisher
    /// ```
    @inlinable
    public func compactMap<T>(_ transform: (Output) -> T?) -> Optional<T>.Publisher {
        Optional<T>.Publisher(transform(output))
    }
}
