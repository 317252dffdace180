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
    /// pipeline does not keep an owner captured by the closures alive. A
    /// sink made with the initialiser releases its closures itself on
    /// completion and on cancel (as Combine's does), at the cost of a lock
    /// per value.
    ///
    /// Misuse, as in Combine: a value or a completion that arrives before
    /// the subscription is delivered; a cancel before the subscription does
    /// nothing; a second subscription is cancelled.
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
        /// released around every call, and its accesses are checked for
        /// exclusivity (about 5 ns per value together); a `let` is called
        /// in place. A sink made by `sink(…)` releases them by being
        /// released (its token lets go of it on completion and cancel); a
        /// sink made with the public initialiser calls through `released`,
        /// whose closures it can drop, as Combine's sink does.
        @usableFromInline internal let onValue: (Input) -> Void
        @usableFromInline internal let onCompletion: (Subscribers.Completion<Failure>) -> Void
        /// The user's closures, for a sink made with the public initialiser
        /// (nil for one made by `sink(…)`).
        @usableFromInline internal let releasable: SinkClosures<Input, Failure>?

        @usableFromInline internal static var awaiting: UInt8 { 0 }
        @usableFromInline internal static var subscribed: UInt8 { 1 }
        @usableFromInline internal static var terminal: UInt8 { 2 }

        /// The life-cycle phase. Written under `state`'s lock, read on the
        /// value path without it (an acquiring load is a plain load on x86).
        @usableFromInline internal let phase = Atomic<UInt8>(0)

        /// Not nested here: see ``SinkState``.
        @usableFromInline
        internal typealias State = SinkState

        @usableFromInline internal let state = Locked(State())

        /// The closure that runs for each value; a no-op once the sink has
        /// completed or been cancelled.
        public var receiveValue: (Input) -> Void {
            if phase.load(ordering: .acquiring) == Self.terminal { return { _ in } }
            if let releasable { return releasable.current.value }
            return onValue
        }

        /// The closure that runs on completion; a no-op once the sink has
        /// completed or been cancelled.
        public var receiveCompletion: (Subscribers.Completion<Failure>) -> Void {
            if phase.load(ordering: .acquiring) == Self.terminal { return { _ in } }
            if let releasable { return releasable.current.completion }
            return onCompletion
        }

        /// Creates a sink with closures for completion and for values.
        ///
        /// The sink releases both closures once it completes, or once it is
        /// cancelled after receiving a subscription.
        ///
        /// ```swift
        /// let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { print($0) })
        /// ```
        public init(receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
                    receiveValue: @escaping (Input) -> Void) {
            let closures = SinkClosures(value: receiveValue, completion: receiveCompletion)
            releasable = closures
            // Reading under the box's lock on each value is what Combine's
            // sink costs; only hand-made sinks pay it.
            onValue = { closures.deliver($0) }
            onCompletion = { closures.finish($0) }
        }

        /// The sink `sink(…)` makes: closures stored in place, released with
        /// the sink, which its token lets go of on completion and cancel.
        @inlinable
        internal init(owned receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
                      receiveValue: @escaping (Input) -> Void) {
            releasable = nil
            onValue = receiveValue
            onCompletion = receiveCompletion
        }

        /// Records the token that owns this sink (see `State.token`).
        @usableFromInline
        internal func attach(token: AnyCancellable) {
            state.withLock { s in
                if phase.load(ordering: .relaxed) != Self.terminal {
                    s.token = Unmanaged.passUnretained(token)
                }
            }
        }

        /// Stores the subscription and requests `.unlimited`; a second
        /// subscription, or one arriving after completion, is cancelled at
        /// once (as Combine does).
        // Inlinable so it is specialised for the subscriber's types: the
        // generic version looked up type metadata on every call (about 12
        // lookups per HTTP request, docs/benchmarks.md).
        @inlinable
        public func receive(subscription: any Subscription) {
            let accepted = state.withLock { s -> Bool in
                guard phase.load(ordering: .relaxed) == Self.awaiting else { return false }
                s.subscription = subscription
                phase.store(Self.subscribed, ordering: .releasing)
                return true
            }
            if accepted {
                subscription.request(.unlimited)
            } else {
                subscription.cancel()
            }
        }

        /// Runs `receiveValue` unless the sink has completed or been
        /// cancelled; as in Combine, a value that arrives before (or
        /// without) a subscription is delivered too.
        @inlinable
        public func receive(_ value: Input) -> Subscribers.Demand {
            if phase.load(ordering: .acquiring) != Self.terminal {
                onValue(value)
            }
            return .none
        }

        /// Runs `receiveCompletion` once (also before a subscription, as
        /// Combine does), then releases the closures and the subscription
        /// without cancelling it.
        @inlinable
        public func receive(completion: Subscribers.Completion<Failure>) {
            let released = state.withLock { s -> (subscription: (any Subscription)?, token: AnyCancellable.Action)? in
                guard phase.load(ordering: .relaxed) != Self.terminal else { return nil }
                phase.store(Self.terminal, ordering: .releasing)
                // Detached while we hold the lock: the token cannot finish
                // dying meanwhile, because its deinit cancels us and waits
                // for this lock.
                let action = s.token?._withUnsafeGuaranteedRef { $0.detach() } ?? .done
                s.token = nil
                // Moved out, not copied (see SubscriptionStatus.terminate).
                return (s.subscription.take(), action)
            }
            guard released != nil else { return }
            if let releasable {
                releasable.finish(completion)
            } else {
                onCompletion(completion)
            }
            // `released` (the subscription, and the token's hold on us) is
            // dropped here, outside the lock.
        }

        /// Cancels the upstream subscription and releases the closures.
        /// Idempotent; callable from any thread. As in Combine, a cancel
        /// before the subscription has arrived does nothing.
        @inlinable
        public func cancel() {
            // One optional, not an optional of an optional: every copy of
            // an `any Subscription` is a value-witness call. The
            // subscription is set exactly while subscribed, so nil means
            // there was nothing to cancel.
            let taken = state.withLock { s -> (any Subscription)? in
                let now = phase.load(ordering: .relaxed)
                if now == Self.awaiting {
                    // Ignored, as in Combine; but the token calling us is
                    // letting go of us (or dying): forget it.
                    s.token = nil
                    return nil
                }
                guard now == Self.subscribed else { return nil }
                phase.store(Self.terminal, ordering: .releasing)
                s.token = nil
                return s.subscription.take()
            }
            guard let subscription = taken else { return }
            releasable?.release()
            subscription.cancel()
        }

        /// `Sink`, as Combine describes it.
        public var description: String { "Sink" }
        /// An empty mirror, as in Combine.
        public var customMirror: Mirror { Mirror(self, children: [:]) }
        /// The description.
        public var playgroundDescription: Any { description }
    }
}

/// The closures of a hand-made ``Subscribers/Sink``, which it drops on
/// completion and on cancel. Each value reads the closure under the lock
/// (a retained copy, called outside it), so a concurrent cancel can release
/// it safely.
@usableFromInline
internal final class SinkClosures<Input, Failure: Error>: @unchecked Sendable {
    // @unchecked Sendable: the closures are only touched under `lock`.
    @usableFromInline
    internal struct Closures {
        @usableFromInline var value: (Input) -> Void
        @usableFromInline var completion: (Subscribers.Completion<Failure>) -> Void
    }

    @usableFromInline internal let lock: Locked<Closures>

    @usableFromInline
    internal init(value: @escaping (Input) -> Void, completion: @escaping (Subscribers.Completion<Failure>) -> Void) {
        lock = Locked(Closures(value: value, completion: completion))
    }

    /// The closures now (no-ops once released).
    @usableFromInline
    internal var current: Closures {
        lock.snapshot
    }

    @usableFromInline
    internal func deliver(_ value: Input) {
        let body = lock.withLock { $0.value }
        body(value)
    }

    /// Runs the completion closure after dropping both.
    @usableFromInline
    internal func finish(_ completion: Subscribers.Completion<Failure>) {
        let taken = take()
        taken.completion(completion)
    }

    /// Drops both closures (released by the caller, outside the lock).
    @usableFromInline
    internal func release() {
        _ = take()
    }

    private func take() -> Closures {
        lock.withLock { box -> Closures in
            let old = box
            box = Closures(value: { _ in }, completion: { _ in })
            return old
        }
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
        // A `Just` delivers its value and finishes during `sink`, whatever
        // the subscriber; nothing can observe the sink or the subscription,
        // so (unless an `_Introspection` is watching) the closures are run
        // directly and only the already-finished token is allocated.
        // Folded away when specialised for any other publisher.
        if let just = self as? Just<Output>, !IntrospectionRegistry.isActive {
            receiveValue(just.output)
            receiveCompletion(.finished)
            return AnyCancellable(finished: ())
        }
        let sink = Subscribers.Sink<Output, Failure>(owned: receiveCompletion,
                                                     receiveValue: receiveValue)
        let token = AnyCancellable(sink)
        sink.attach(token: token)
        if IntrospectionRegistry.isActive {
            IntrospectionRegistry.subscribe(self, sink)
        } else {
            receive(subscriber: sink)
        }
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

/// A sink's subscription and token, under its lock.
///
/// A top-level type rather than one nested in the generic `Sink`: a nested
/// type is generic too, and the sink's unspecialised code (`cancel()` reached
/// through `AnyCancellable`, its deinitialiser) would look up its metadata at
/// run time on every use (some 400 instructions each). This one depends on
/// no generic parameter, so its metadata is static.
@usableFromInline
internal struct SinkState {
    @usableFromInline var subscription: (any Subscription)?
    /// The `AnyCancellable` that `sink(…)` returned, which holds this
    /// sink. On completion the sink asks it to let go (so the closures
    /// die with the sink); on cancel the cancellable lets go itself.
    /// Unmanaged because the token owns us; it tells us when it dies
    /// (its deinit cancels us, which clears this under the lock).
    @usableFromInline var token: Unmanaged<AnyCancellable>?

    @inlinable init() {}
}
