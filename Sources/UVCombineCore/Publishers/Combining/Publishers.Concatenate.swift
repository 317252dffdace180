import Synchronization

extension Publisher {
    /// Prefixes a publisher's output with the specified values.
    ///
    /// The values go out first, against the downstream's demand; then this
    /// publisher is subscribed, with the demand left over.
    ///
    /// ```swift
    /// let c = [3, 4].publisher.prepend(1, 2).sink { print($0, terminator: " ") }
    /// // Prints: "1 2 3 4 "
    /// ```
    @inlinable
    public func prepend(_ elements: Output...) -> Publishers.Concatenate<Publishers.Sequence<[Output], Failure>, Self> {
        prepend(Publishers.Sequence(sequence: elements))
    }

    /// Prefixes a publisher's output with the elements of a sequence.
    ///
    /// ```swift
    /// let c = [3, 4].publisher.prepend(0...2).sink { print($0, terminator: " ") }
    /// // Prints: "0 1 2 3 4 "
    /// ```
    @inlinable
    public func prepend<S: Swift.Sequence>(_ elements: S) -> Publishers.Concatenate<Publishers.Sequence<S, Failure>, Self>
        where S.Element == Output
    {
        prepend(Publishers.Sequence(sequence: elements))
    }

    /// Prefixes this publisher's output with the elements of another
    /// publisher: this publisher is subscribed only after `publisher` has
    /// finished, and not at all if it fails.
    ///
    /// ```swift
    /// let c = Just(3).prepend(Just(1)).sink { print($0, terminator: " ") }
    /// // Prints: "1 3 "
    /// ```
    @inlinable
    public func prepend<P: Publisher>(_ publisher: P) -> Publishers.Concatenate<P, Self>
        where P.Failure == Failure, P.Output == Output
    {
        Publishers.Concatenate(prefix: publisher, suffix: self)
    }

    /// Appends a publisher's output with the specified values, published
    /// once this publisher has finished.
    ///
    /// ```swift
    /// let c = [1, 2].publisher.append(3, 4).sink { print($0, terminator: " ") }
    /// // Prints: "1 2 3 4 "
    /// ```
    @inlinable
    public func append(_ elements: Output...) -> Publishers.Concatenate<Self, Publishers.Sequence<[Output], Failure>> {
        append(Publishers.Sequence(sequence: elements))
    }

    /// Appends a publisher's output with the elements of a sequence,
    /// published once this publisher has finished.
    ///
    /// ```swift
    /// let c = [1, 2].publisher.append(3...4).sink { print($0, terminator: " ") }
    /// // Prints: "1 2 3 4 "
    /// ```
    @inlinable
    public func append<S: Swift.Sequence>(_ elements: S) -> Publishers.Concatenate<Self, Publishers.Sequence<S, Failure>>
        where S.Element == Output
    {
        append(Publishers.Sequence(sequence: elements))
    }

    /// Appends the output of this publisher with the elements of another
    /// publisher, which is subscribed once this publisher has finished (and
    /// not at all if it fails).
    ///
    /// ```swift
    /// let c = Just(1).append(Just(2)).sink { print($0, terminator: " ") }
    /// // Prints: "1 2 "
    /// ```
    @inlinable
    public func append<P: Publisher>(_ publisher: P) -> Publishers.Concatenate<Self, P>
        where P.Failure == Failure, P.Output == Output
    {
        Publishers.Concatenate(prefix: self, suffix: publisher)
    }
}

// MARK: Fusion: sequences and Just stay sequences

extension Publishers.Sequence where Elements: RangeReplaceableCollection {
    /// Prepends values to the sequence: still one `Publishers.Sequence`.
    ///
    /// ```swift
    /// let p: Publishers.Sequence<[Int], Never> = [3].publisher.prepend(1, 2)
    /// ```
    @inlinable
    public func prepend(_ elements: Output...) -> Publishers.Sequence<Elements, Failure> {
        prepend(elements)
    }

    /// Prepends the elements of another sequence: still one
    /// `Publishers.Sequence`.
    ///
    /// ```swift
    /// let p: Publishers.Sequence<[Int], Never> = [3].publisher.prepend(1...2)
    /// ```
    @inlinable
    public func prepend<S: Swift.Sequence>(_ elements: S) -> Publishers.Sequence<Elements, Failure>
        where S.Element == Elements.Element
    {
        // Built as Combine builds it (observable through a collection that
        // logs its calls): an empty collection sized from this sequence's
        // `count` and the elements' `underestimatedCount`, then both appended.
        var result = Elements()
        result.reserveCapacity(sequence.count + elements.underestimatedCount)
        result.append(contentsOf: elements)
        result.append(contentsOf: sequence)
        return Publishers.Sequence(sequence: result)
    }

    /// Prepends another sequence publisher: still one `Publishers.Sequence`.
    ///
    /// ```swift
    /// let p = [3].publisher.prepend([1, 2].publisher)
    /// ```
    @inlinable
    public func prepend(_ publisher: Publishers.Sequence<Elements, Failure>) -> Publishers.Sequence<Elements, Failure> {
        // As Combine: this sequence is appended to the other one (in place,
        // for a collection with reference semantics).
        var result = publisher.sequence
        result.append(contentsOf: sequence)
        return Publishers.Sequence(sequence: result)
    }

    /// Appends values to the sequence: still one `Publishers.Sequence`.
    ///
    /// ```swift
    /// let p: Publishers.Sequence<[Int], Never> = [1].publisher.append(2, 3)
    /// ```
    @inlinable
    public func append(_ elements: Output...) -> Publishers.Sequence<Elements, Failure> {
        append(elements)
    }

    /// Appends the elements of another sequence: still one
    /// `Publishers.Sequence`.
    ///
    /// ```swift
    /// let p: Publishers.Sequence<[Int], Never> = [1].publisher.append(2...3)
    /// ```
    @inlinable
    public func append<S: Swift.Sequence>(_ elements: S) -> Publishers.Sequence<Elements, Failure>
        where S.Element == Elements.Element
    {
        var result = sequence
        result.append(contentsOf: elements)
        return Publishers.Sequence(sequence: result)
    }

    /// Appends another sequence publisher: still one `Publishers.Sequence`.
    ///
    /// ```swift
    /// let p = [1].publisher.append([2, 3].publisher)
    /// ```
    @inlinable
    public func append(_ publisher: Publishers.Sequence<Elements, Failure>) -> Publishers.Sequence<Elements, Failure> {
        append(publisher.sequence)
    }
}

extension Just {
    /// Prepends values to this value: a `Publishers.Sequence`.
    ///
    /// ```swift
    /// let p: Publishers.Sequence<[Int], Never> = Just(3).prepend(1, 2)
    /// ```
    @inlinable
    public func prepend(_ elements: Output...) -> Publishers.Sequence<[Output], Never> {
        prepend(elements)
    }

    /// Prepends the elements of a sequence to this value: a
    /// `Publishers.Sequence`.
    ///
    /// ```swift
    /// let p: Publishers.Sequence<[Int], Never> = Just(3).prepend(1...2)
    /// ```
    @inlinable
    public func prepend<S: Swift.Sequence>(_ elements: S) -> Publishers.Sequence<[Output], Never>
        where S.Element == Output
    {
        // As Combine: `+` sizes the array from `underestimatedCount` (never
        // `count`, which may walk the whole collection) before appending.
        Publishers.Sequence(sequence: elements + [output])
    }

    /// Appends values to this value: a `Publishers.Sequence`.
    ///
    /// ```swift
    /// let p: Publishers.Sequence<[Int], Never> = Just(1).append(2, 3)
    /// ```
    @inlinable
    public func append(_ elements: Output...) -> Publishers.Sequence<[Output], Never> {
        append(elements)
    }

    /// Appends the elements of a sequence to this value: a
    /// `Publishers.Sequence`.
    ///
    /// ```swift
    /// let p: Publishers.Sequence<[Int], Never> = Just(1).append(2...3)
    /// ```
    @inlinable
    public func append<S: Swift.Sequence>(_ elements: S) -> Publishers.Sequence<[Output], Never>
        where S.Element == Output
    {
        Publishers.Sequence(sequence: [output] + elements)
    }
}

extension Publishers {
    /// A publisher that emits all of one publisher's elements before those
    /// from another publisher.
    ///
    /// The downstream gets its subscription when the prefix gives one. The
    /// suffix is subscribed once the prefix has finished (never if it
    /// fails), and is asked for the demand the downstream requested and the
    /// prefix did not use. Elements the prefix sends beyond the demand are
    /// dropped. `cancel()` cancels whichever is subscribed. As in Combine,
    /// `request(.none)` is accepted and passed on to whichever is subscribed.
    ///
    /// Threading: `request` and `cancel` may come from any thread; the suffix
    /// is subscribed on the thread the prefix finishes on.
    ///
    /// ```swift
    /// let both = Publishers.Concatenate(prefix: [1, 2].publisher, suffix: [3].publisher)
    /// let c = both.sink { print($0, terminator: " ") }
    /// // Prints: "1 2 3 "
    /// ```
    public struct Concatenate<Prefix: Publisher, Suffix: Publisher>: Publisher
        where Prefix.Failure == Suffix.Failure, Prefix.Output == Suffix.Output
    {
        /// The output type shared by both publishers.
        public typealias Output = Suffix.Output
        /// The failure type shared by both publishers.
        public typealias Failure = Suffix.Failure

        /// The publisher to republish, in its entirety, before republishing
        /// elements from `suffix`.
        public let prefix: Prefix

        /// The publisher to republish only after `prefix` finishes.
        public let suffix: Suffix

        /// Creates a publisher that emits all of `prefix`'s elements, then
        /// those of `suffix`.
        ///
        /// ```swift
        /// let p = Publishers.Concatenate(prefix: Just(1), suffix: Just(2))
        /// ```
        @inlinable
        public init(prefix: Prefix, suffix: Suffix) {
            self.prefix = prefix
            self.suffix = suffix
        }

        /// Subscribes an inner subscriber to the prefix.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            prefix.receive(subscriber: Inner(downstream: subscriber, suffix: suffix).prefixSide)
        }
    }
}

extension Publishers.Concatenate: Equatable where Prefix: Equatable, Suffix: Equatable {}

extension Publishers.Concatenate {
    /// One subscription: first to the prefix, then to the suffix. The
    /// downstream sees one subscription, `Concatenate`, throughout.
    @usableFromInline
    internal final class Inner<Downstream: Subscriber>: Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == Output, Downstream.Failure == Failure
    {
        /// Where the values come from. A trivial enum: checking it on the
        /// per-value path copies nothing.
        @usableFromInline
        internal enum Phase: UInt8 {
            case awaitingPrefix
            case prefix
            /// The prefix finished; the suffix is being subscribed.
            case awaitingSuffix
            case suffix
            case terminal
        }

        @usableFromInline
        internal struct State {
            @usableFromInline var phase: Phase = .awaitingPrefix
            /// The prefix's subscription, then the suffix's.
            @usableFromInline var subscription: (any Subscription)?
            /// Requested by the downstream and not yet delivered by the
            /// prefix; handed to the suffix.
            @usableFromInline var demand: Subscribers.Demand = .none
            /// Released once subscribed, or on cancel.
            @usableFromInline var suffix: Suffix?

            @inlinable
            init(suffix: Suffix) {
                self.suffix = suffix
            }
        }

        @usableFromInline let downstream: Downstream
        @usableFromInline let state: Locked<State>
        /// `request` arrives through `any Subscription`, where only the
        /// unspecialised body is reachable; this non-capturing closure,
        /// formed where the types are known, runs the specialised one.
        @usableFromInline let requestImpl: (Inner, Subscribers.Demand) -> Void

        @inlinable
        init(downstream: Downstream, suffix: Suffix) {
            self.downstream = downstream
            state = Locked(State(suffix: suffix))
            requestImpl = { $0.performRequest($1) }
        }

        @inlinable var prefixSide: PrefixSide { PrefixSide(inner: self) }

        // MARK: Prefix

        @inlinable
        func receivePrefix(subscription: any Subscription) {
            let accepted = state.withLock { s -> Bool in
                guard s.phase == .awaitingPrefix else { return false }
                s.phase = .prefix
                s.subscription = subscription
                return true
            }
            if accepted {
                downstream.receive(subscription: self)
            } else {
                subscription.cancel()
            }
        }

        @inlinable
        func receivePrefix(_ input: Output) -> Subscribers.Demand {
            let deliver = state.withLock { s -> Bool in
                guard s.phase == .prefix, s.demand.rawValue > 0 else { return false }
                if !s.demand.isUnlimited {
                    s.demand = Subscribers.Demand(rawValue: s.demand.rawValue &- 1)
                }
                return true
            }
            guard deliver else { return .none }
            let more = downstream.receive(input)
            if more.rawValue > 0 {
                state.withLock { $0.demand += more }
            }
            return more
        }

        @inlinable
        func receivePrefix(completion: Subscribers.Completion<Failure>) {
            let suffix = state.withLock { s -> Suffix?? in
                guard s.phase == .prefix else { return nil }
                s.subscription = nil
                switch completion {
                case .finished:
                    s.phase = .awaitingSuffix
                    defer { s.suffix = nil }
                    return s.suffix
                case .failure:
                    s.phase = .terminal
                    s.suffix = nil
                    return .some(nil)
                }
            }
            guard let suffix else { return }
            if let publisher = suffix {
                publisher.receive(subscriber: SuffixSide(inner: self))
            } else {
                downstream.receive(completion: completion)
            }
        }

        // MARK: Suffix

        @inlinable
        func receiveSuffix(subscription: any Subscription) {
            let demand = state.withLock { s -> Subscribers.Demand? in
                guard s.phase == .awaitingSuffix else { return nil }
                s.phase = .suffix
                s.subscription = subscription
                return s.demand
            }
            guard let demand else {
                subscription.cancel()
                return
            }
            if demand.rawValue > 0 { subscription.request(demand) }
        }

        @inlinable
        func receiveSuffix(_ input: Output) -> Subscribers.Demand {
            guard state.withLock({ $0.phase == .suffix }) else { return .none }
            return downstream.receive(input)
        }

        @inlinable
        func receiveSuffix(completion: Subscribers.Completion<Failure>) {
            let active = state.withLock { s -> Bool in
                guard s.phase == .suffix else { return false }
                s.phase = .terminal
                s.subscription = nil
                return true
            }
            if active { downstream.receive(completion: completion) }
        }

        // MARK: Subscription

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            // Combine accepts `.none` here and forwards it.
            requestImpl(self, demand)
        }

        @inlinable
        func performRequest(_ demand: Subscribers.Demand) {
            let target = state.withLock { s -> (any Subscription)? in
                switch s.phase {
                case .awaitingPrefix, .awaitingSuffix:
                    s.demand += demand
                    return nil
                case .prefix:
                    s.demand += demand
                    return s.subscription
                case .suffix:
                    return s.subscription
                case .terminal:
                    return nil
                }
            }
            target?.request(demand)
        }

        @usableFromInline
        func cancel() {
            let released = state.withLock { s -> ((any Subscription)?, Suffix?) in
                let released = (s.subscription, s.suffix)
                s.phase = .terminal
                s.subscription = nil
                s.suffix = nil
                return released
            }
            // The suffix is released here, outside the lock.
            released.0?.cancel()
        }

        @usableFromInline var description: String { "Concatenate" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }

        /// The subscriber given to the prefix; reports itself as the
        /// subscription does.
        @usableFromInline
        internal struct PrefixSide: Subscriber, CustomStringConvertible, CustomReflectable,
            CustomPlaygroundDisplayConvertible
        {
            @usableFromInline typealias Input = Output
            @usableFromInline let inner: Inner

            @inlinable init(inner: Inner) { self.inner = inner }
            @inlinable var combineIdentifier: CombineIdentifier { CombineIdentifier(inner) }
            @inlinable func receive(subscription: any Subscription) { inner.receivePrefix(subscription: subscription) }
            @inlinable func receive(_ input: Output) -> Subscribers.Demand { inner.receivePrefix(input) }
            @inlinable func receive(completion: Subscribers.Completion<Failure>) {
                inner.receivePrefix(completion: completion)
            }
            @usableFromInline var description: String { "Concatenate" }
            @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
            @usableFromInline var playgroundDescription: Any { description }
        }

        /// The subscriber given to the suffix; reports itself as the
        /// subscription does.
        @usableFromInline
        internal struct SuffixSide: Subscriber, CustomStringConvertible, CustomReflectable,
            CustomPlaygroundDisplayConvertible
        {
            @usableFromInline typealias Input = Output
            @usableFromInline let inner: Inner

            @inlinable init(inner: Inner) { self.inner = inner }
            @inlinable var combineIdentifier: CombineIdentifier { CombineIdentifier(inner) }
            @inlinable func receive(subscription: any Subscription) { inner.receiveSuffix(subscription: subscription) }
            @inlinable func receive(_ input: Output) -> Subscribers.Demand { inner.receiveSuffix(input) }
            @inlinable func receive(completion: Subscribers.Completion<Failure>) {
                inner.receiveSuffix(completion: completion)
            }
            @usableFromInline var description: String { "Concatenate" }
            @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
            @usableFromInline var playgroundDescription: Any { description }
        }
    }
}
