import Synchronization

extension Sequence {
    /// A publisher that emits the elements of this sequence, honouring
    /// demand, then finishes.
    ///
    /// ```swift
    /// let c = [1, 2, 3].publisher.sink { print($0) }
    /// // Prints: "1 2 3"
    /// ```
    @inlinable
    public var publisher: Publishers.Sequence<Self, Never> {
        Publishers.Sequence(sequence: self)
    }
}

extension Publishers {
    /// A publisher that publishes a given sequence of elements.
    ///
    /// Each subscriber iterates the sequence on its own. Elements are emitted
    /// on the thread that requests them; a request made re-entrantly from
    /// `receive(_:)` adds to the demand of the loop already running (no
    /// recursion). `.finished` follows the last element without needing
    /// further demand. An empty sequence finishes at subscription.
    ///
    /// ```swift
    /// let p = Publishers.Sequence<[Int], Never>(sequence: [1, 2])
    /// ```
    public struct Sequence<Elements: Swift.Sequence, Failure: Error>: Publisher {
        /// The sequence's element type.
        public typealias Output = Elements.Element

        /// The sequence of elements to publish.
        public let sequence: Elements

        /// Creates a publisher for `sequence`.
        @inlinable
        public init(sequence: Elements) {
            self.sequence = sequence
        }

        /// Attaches `subscriber` with its own iteration.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            var iterator = sequence.makeIterator()
            guard let first = iterator.next() else {
                subscriber.receive(subscription: Subscriptions.empty)
                subscriber.receive(completion: .finished)
                return
            }
            subscriber.receive(subscription: Inner(sequence: sequence, downstream: subscriber, iterator: iterator,
                                                    first: first))
        }
    }
}

extension Publishers.Sequence: Equatable where Elements: Equatable {}

extension Publishers.Sequence {
    /// Emits elements while there is demand. One element is always read
    /// ahead, so the completion can follow the last element at once.
    ///
    /// As Combine's, it releases its subscriber when it finishes or is
    /// cancelled, accepts a request of `.none` (it adds nothing), and
    /// describes itself by its sequence (`String(describing: sequence)`,
    /// mirror child `sequence`) while active, as "Sequence" once done.
    @usableFromInline
    internal final class Inner<Downstream: Subscriber>: Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
        where Downstream.Input == Elements.Element, Downstream.Failure == Failure
    {
        @usableFromInline
        internal struct State {
            @usableFromInline var iterator: Elements.Iterator
            /// The element to emit next; `nil` once exhausted or cancelled.
            @usableFromInline var next: Elements.Element?
            @usableFromInline var demand: Subscribers.Demand = .none
            /// A loop is running on some thread; new demand joins it.
            @usableFromInline var emitting = false
            @usableFromInline var cancelled = false
            /// The subscriber, until the subscription finishes or is
            /// cancelled. The emit loop works on its own copy, taken once
            /// per loop (not per element).
            @usableFromInline var downstream: Downstream?
            /// The sequence, for `description` and the mirror while active.
            @usableFromInline var sequence: Elements?

            @inlinable
            init(sequence: Elements, iterator: Elements.Iterator, next: Elements.Element, downstream: Downstream) {
                self.sequence = sequence
                self.iterator = iterator
                self.next = next
                self.downstream = downstream
            }
        }

        @usableFromInline enum Step {
            case emit(Elements.Element, last: Bool)
            case stop
        }

        @usableFromInline let state: Locked<State>
        /// The emit loop, formed where `receive(subscriber:)` is specialised.
        /// `request` arrives through `any Subscription`, where only the
        /// unspecialised body is reachable; that body allocates per element
        /// (generic iterator coroutines). Calling through this non-capturing
        /// closure runs the specialised loop instead.
        @usableFromInline let emitter: (Inner, Downstream) -> Void

        @inlinable
        init(sequence: Elements, downstream: Downstream, iterator: Elements.Iterator, first: Elements.Element) {
            state = Locked(State(sequence: sequence, iterator: iterator, next: first,
                                                  downstream: downstream))
            emitter = { $0.emit(to: $1) }
        }

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            // Combine's Sequence subscription accepts `.none`: nothing to add.
            guard demand.rawValue > 0 else { return }
            let start = state.withLock { s -> Downstream? in
                guard s.next != nil else { return nil }
                s.demand += demand
                if s.emitting { return nil }
                s.emitting = true
                return s.downstream
            }
            if let downstream = start { emitter(self, downstream) }
        }

        @inlinable
        func emit(to downstream: Downstream) {
            while true {
                let step = state.withLock { s -> Step in
                    guard let element = s.next, s.demand.rawValue > 0 else {
                        s.emitting = false
                        return .stop
                    }
                    if !s.demand.isUnlimited {
                        s.demand = Subscribers.Demand(rawValue: s.demand.rawValue - 1)
                    }
                    s.next = s.iterator.next()
                    return .emit(element, last: s.next == nil)
                }
                guard case .emit(let element, let last) = step else { return }
                let more = downstream.receive(element)
                if last {
                    // Done: forget the subscriber (released when this loop
                    // returns) and the sequence; finish unless cancelled.
                    let finish = state.withLock { s -> Bool in
                        s.downstream = nil
                        s.sequence = nil
                        return !s.cancelled
                    }
                    if finish { downstream.receive(completion: .finished) }
                    return
                }
                if more.rawValue > 0 {
                    state.withLock { $0.demand += more }
                }
            }
        }

        @inlinable
        func cancel() {
            // Released outside the lock (its deinit may run user code); a
            // running emit loop keeps its own reference until it stops.
            let released = state.withLock { s -> (Downstream?, Elements?) in
                s.next = nil
                s.cancelled = true
                defer {
                    s.downstream = nil
                    s.sequence = nil
                }
                return (s.downstream, s.sequence)
            }
            _ = released
        }

        @usableFromInline var description: String {
            guard let sequence = state.withLock({ $0.sequence }) else { return "Sequence" }
            return String(describing: sequence)
        }

        /// `sequence`: the sequence while active, then an empty array of
        /// its elements, as Combine's subscription reports it.
        @usableFromInline var customMirror: Mirror {
            guard let sequence = state.withLock({ $0.sequence }) else {
                return Mirror(self, children: ["sequence": [Elements.Element]()])
            }
            return Mirror(self, children: ["sequence": sequence])
        }

        @usableFromInline var playgroundDescription: Any { description }
    }
}
