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
            subscriber.receive(subscription: Inner(downstream: subscriber, iterator: iterator, first: first))
        }
    }
}

extension Publishers.Sequence: Equatable where Elements: Equatable {}

extension Publishers.Sequence {
    /// Emits elements while there is demand. One element is always read
    /// ahead, so the completion can follow the last element at once.
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

            @inlinable
            init(iterator: Elements.Iterator, next: Elements.Element) {
                self.iterator = iterator
                self.next = next
            }
        }

        @usableFromInline enum Step {
            case emit(Elements.Element, last: Bool)
            case stop
        }

        @usableFromInline let downstream: Downstream
        @usableFromInline let state: Mutex<UncheckedSendable<State>>
        /// The emit loop, formed where `receive(subscriber:)` is specialised.
        /// `request` arrives through `any Subscription`, where only the
        /// unspecialised body is reachable; that body allocates per element
        /// (generic iterator coroutines). Calling through this non-capturing
        /// closure runs the specialised loop instead.
        @usableFromInline let emitter: (Inner) -> Void

        @inlinable
        init(downstream: Downstream, iterator: Elements.Iterator, first: Elements.Element) {
            self.downstream = downstream
            state = Mutex(UncheckedSendable(State(iterator: iterator, next: first)))
            emitter = { $0.emit() }
        }

        @inlinable
        func request(_ demand: Subscribers.Demand) {
            demand.assertNonZero()
            let start = state.withLock { s -> Bool in
                guard s.value.next != nil else { return false }
                s.value.demand += demand
                if s.value.emitting { return false }
                s.value.emitting = true
                return true
            }
            if start { emitter(self) }
        }

        @inlinable
        func emit() {
            while true {
                let step = state.withLock { s -> UncheckedSendable<Step> in
                    guard let element = s.value.next, s.value.demand.rawValue > 0 else {
                        s.value.emitting = false
                        return UncheckedSendable(.stop)
                    }
                    if !s.value.demand.isUnlimited {
                        s.value.demand = Subscribers.Demand(rawValue: s.value.demand.rawValue - 1)
                    }
                    s.value.next = s.value.iterator.next()
                    return UncheckedSendable(.emit(element, last: s.value.next == nil))
                }
                guard case .emit(let element, let last) = step.value else { return }
                let more = downstream.receive(element)
                if last {
                    if !state.withLock({ $0.value.cancelled }) {
                        downstream.receive(completion: .finished)
                    }
                    return
                }
                if more.rawValue > 0 {
                    state.withLock { $0.value.demand += more }
                }
            }
        }

        @inlinable
        func cancel() {
            state.withLock {
                $0.value.next = nil
                $0.value.cancelled = true
            }
        }

        @usableFromInline var description: String { "Sequence" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }
    }
}
