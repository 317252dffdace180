import Synchronization

extension Subscribers {
    /// A simple subscriber that requests an unlimited number of values upon
    /// subscription and runs closures for values and completion.
    ///
    /// Threading: the closures run on whatever thread the publisher delivers
    /// on. `cancel()` may be called from any thread, also from inside the
    /// closures; after cancel or completion the closures are released (which
    /// breaks retain cycles through captured owners) and never called again.
    ///
    /// ```swift
    /// let sink = Subscribers.Sink<Int, Never>(
    ///     receiveCompletion: { print("done: \($0)") },
    ///     receiveValue: { print($0) })
    /// [1, 2].publisher.subscribe(sink)
    /// // Prints: "1", "2", "done: finished"
    /// ```
    public final class Sink<Input, Failure: Error>: Subscriber, Cancellable,
        CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
    {
        /// A closure kept in a struct field: a closure moved through a
        /// generic container (`Optional<T>`, a lock's result type) is
        /// re-abstracted with an allocated thunk, one per value. Inside a
        /// struct field its representation never changes.
        @usableFromInline
        internal struct Handler<Argument> {
            @usableFromInline let call: (Argument) -> Void

            @inlinable
            init(_ call: @escaping (Argument) -> Void) {
                self.call = call
            }
        }

        @usableFromInline
        internal enum Phase: UInt8 {
            case awaitingSubscription, subscribed, terminal
        }

        /// Kept flat so the per-value path reads one byte and copies one
        /// closure (a single retain), not the subscription existential.
        @usableFromInline
        internal struct State {
            @usableFromInline var phase: Phase = .awaitingSubscription
            @usableFromInline var subscription: (any Subscription)?
            /// `nil` once completed or cancelled: releasing the closures
            /// breaks retain cycles through captured owners.
            @usableFromInline var onValue: Handler<Input>?
            @usableFromInline var onCompletion: Handler<Subscribers.Completion<Failure>>?

            @inlinable
            init(onValue: Handler<Input>, onCompletion: Handler<Subscribers.Completion<Failure>>) {
                self.onValue = onValue
                self.onCompletion = onCompletion
            }

            /// Ends the subscription; returns what must be released or
            /// called outside the lock.
            @inlinable
            mutating func terminate() -> State {
                let old = self
                phase = .terminal
                subscription = nil
                onValue = nil
                onCompletion = nil
                return old
            }
        }

        @usableFromInline internal let state: Mutex<UncheckedSendable<State>>

        /// The closure that runs for each value; a no-op once the sink has
        /// completed or been cancelled.
        public var receiveValue: (Input) -> Void {
            state.withLock { UncheckedSendable($0.value.onValue) }.value?.call ?? { _ in }
        }

        /// The closure that runs on completion; a no-op once the sink has
        /// completed or been cancelled.
        public var receiveCompletion: (Subscribers.Completion<Failure>) -> Void {
            state.withLock { UncheckedSendable($0.value.onCompletion) }.value?.call ?? { _ in }
        }

        /// Creates a sink with closures for completion and for values.
        ///
        /// ```swift
        /// let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { print($0) })
        /// ```
        public init(receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
                    receiveValue: @escaping (Input) -> Void) {
            state = Mutex(UncheckedSendable(State(onValue: Handler(receiveValue),
                                                  onCompletion: Handler(receiveCompletion))))
        }

        /// Stores the subscription and requests `.unlimited`; a second
        /// subscription is cancelled at once.
        public func receive(subscription: any Subscription) {
            let accepted = state.withLock { s -> Bool in
                guard s.value.phase == .awaitingSubscription else { return false }
                s.value.phase = .subscribed
                s.value.subscription = subscription
                return true
            }
            if accepted {
                subscription.request(.unlimited)
            } else {
                subscription.cancel()
            }
        }

        /// Runs `receiveValue` while subscribed.
        @inlinable
        public func receive(_ value: Input) -> Subscribers.Demand {
            let handler = state.withLock { s in
                UncheckedSendable(s.value.phase == .subscribed ? s.value.onValue : nil)
            }
            handler.value?.call(value)
            return .none
        }

        /// Runs `receiveCompletion` once, then releases both closures.
        public func receive(completion: Subscribers.Completion<Failure>) {
            let old = state.withLock { s -> UncheckedSendable<State?> in
                if s.value.phase == .terminal { return UncheckedSendable(nil) }
                return UncheckedSendable(s.value.terminate())
            }
            old.value?.onCompletion?.call(completion)
        }

        /// Cancels the upstream subscription and releases both closures.
        /// Idempotent; callable from any thread.
        public func cancel() {
            let old = state.withLock { s -> UncheckedSendable<State?> in
                if s.value.phase == .terminal { return UncheckedSendable(nil) }
                return UncheckedSendable(s.value.terminate())
            }
            // Released here, outside the lock: the closures' captures may
            // run arbitrary deinit code.
            old.value?.subscription?.cancel()
        }

        /// `Sink`, as Combine describes it.
        public var description: String { "Sink" }
        /// An empty mirror, as in Combine.
        public var customMirror: Mirror { Mirror(self, children: [:]) }
        /// The description.
        public var playgroundDescription: Any { description }
    }
}

extension Publisher {
    /// Attaches a subscriber with closure-based behavior.
    ///
    /// Requests `.unlimited` at once. The returned ``AnyCancellable`` cancels
    /// the subscription when cancelled or deinitialised: keep it.
    ///
    /// ```swift
    /// let cancellable = [1, 2, 3].publisher.sink(
    ///     receiveCompletion: { print($0) },
    ///     receiveValue: { print($0) })
    /// // Prints: "1", "2", "3", "finished"
    /// ```
    @inlinable
    public func sink(receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
                     receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        let sink = Subscribers.Sink<Output, Failure>(receiveCompletion: receiveCompletion,
                                                     receiveValue: receiveValue)
        receive(subscriber: sink)
        return AnyCancellable(sink)
    }
}

extension Publisher where Failure == Never {
    /// Attaches a subscriber with closure-based behavior to a publisher that
    /// never fails.
    ///
    /// ```swift
    /// let cancellable = Just(1).sink { print($0) }
    /// // Prints: "1"
    /// ```
    @inlinable
    public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        sink(receiveCompletion: { _ in }, receiveValue: receiveValue)
    }
}
