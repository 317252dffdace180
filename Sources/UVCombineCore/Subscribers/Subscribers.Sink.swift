import Synchronization

extension Subscribers {
    /// A simple subscriber that requests an unlimited number of values upon
    /// subscription and runs closures for values and completion.
    ///
    /// Threading: the closures run on whatever thread the publisher delivers
    /// on. `cancel()` may be called from any thread, also from inside the
    /// closures; after it returns the value closure is not called again
    /// (for a value in flight on another thread, publishers that serialise
    /// delivery — subjects, `share()`, loop-bound publishers — make
    /// `cancel()` wait for it).
    ///
    /// Lifetime: the sink that `sink(receiveCompletion:receiveValue:)`
    /// creates is released by its `AnyCancellable` on cancel and on
    /// completion, and its closures with it, so a finished or cancelled
    /// pipeline does not keep an owner captured by the closures alive.
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
        /// The closures are `let`: a stored `var` closure is retained and
        /// released around every call (two atomic operations per value);
        /// a `let` is called in place.
        @usableFromInline internal let onValue: (Input) -> Void
        @usableFromInline internal let onCompletion: (Subscribers.Completion<Failure>) -> Void

        @usableFromInline internal static var awaiting: UInt8 { 0 }
        @usableFromInline internal static var subscribed: UInt8 { 1 }
        @usableFromInline internal static var terminal: UInt8 { 2 }

        /// The life-cycle phase. Written under `state`'s lock, read on the
        /// value path without it (an acquiring load is a plain load on x86).
        @usableFromInline internal let phase = Atomic<UInt8>(0)

        @usableFromInline
        internal struct State {
            @usableFromInline var subscription: (any Subscription)?
            /// The `AnyCancellable` that `sink(…)` returned, which holds this
            /// sink. On completion the sink asks it to let go (so the closures
            /// die with the sink); on cancel the cancellable lets go itself.
            /// Unmanaged because the token owns us; it tells us when it dies
            /// (its deinit cancels us, which clears this under the lock).
            @usableFromInline var token: Unmanaged<AnyCancellable>?

            @inlinable init() {}
        }

        @usableFromInline internal let state = Mutex(UncheckedSendable(State()))

        /// The closure that runs for each value; a no-op once the sink has
        /// completed or been cancelled.
        public var receiveValue: (Input) -> Void {
            phase.load(ordering: .acquiring) == Self.terminal ? { _ in } : onValue
        }

        /// The closure that runs on completion; a no-op once the sink has
        /// completed or been cancelled.
        public var receiveCompletion: (Subscribers.Completion<Failure>) -> Void {
            phase.load(ordering: .acquiring) == Self.terminal ? { _ in } : onCompletion
        }

        /// Creates a sink with closures for completion and for values.
        ///
        /// ```swift
        /// let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { print($0) })
        /// ```
        public init(receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
                    receiveValue: @escaping (Input) -> Void) {
            onValue = receiveValue
            onCompletion = receiveCompletion
        }

        /// Records the token that owns this sink (see `State.token`).
        @usableFromInline
        internal func attach(token: AnyCancellable) {
            state.withLock { s in
                if phase.load(ordering: .relaxed) != Self.terminal {
                    s.value.token = Unmanaged.passUnretained(token)
                }
            }
        }

        /// Stores the subscription and requests `.unlimited`; a second
        /// subscription is cancelled at once.
        public func receive(subscription: any Subscription) {
            let accepted = state.withLock { s -> Bool in
                guard phase.load(ordering: .relaxed) == Self.awaiting else { return false }
                s.value.subscription = subscription
                phase.store(Self.subscribed, ordering: .releasing)
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
            if phase.load(ordering: .acquiring) == Self.subscribed {
                onValue(value)
            }
            return .none
        }

        /// Runs `receiveCompletion` once.
        public func receive(completion: Subscribers.Completion<Failure>) {
            let released = state.withLock { s -> UncheckedSendable<(subscription: (any Subscription)?, token: AnyCancellable.Action)>? in
                guard phase.load(ordering: .relaxed) != Self.terminal else { return nil }
                phase.store(Self.terminal, ordering: .releasing)
                // Detached while we hold the lock: the token cannot finish
                // dying meanwhile, because its deinit cancels us and waits
                // for this lock.
                let action = s.value.token?._withUnsafeGuaranteedRef { $0.detach() } ?? .done
                defer { s.value = State() }
                return UncheckedSendable((s.value.subscription, action))
            }
            guard released != nil else { return }
            onCompletion(completion)
            // `released` (the subscription, and the token's hold on us) is
            // dropped here, outside the lock.
        }

        /// Cancels the upstream subscription. Idempotent; callable from any
        /// thread.
        public func cancel() {
            let subscription = state.withLock { s -> UncheckedSendable<(any Subscription)?>? in
                guard phase.load(ordering: .relaxed) != Self.terminal else { return nil }
                phase.store(Self.terminal, ordering: .releasing)
                defer { s.value = State() }
                return UncheckedSendable(s.value.subscription)
            }
            subscription?.value?.cancel()
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
        let token = AnyCancellable(sink)
        sink.attach(token: token)
        receive(subscriber: sink)
        return token
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
