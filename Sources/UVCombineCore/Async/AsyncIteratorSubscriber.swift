import Synchronization

/// The subscriber behind ``AsyncPublisher`` and ``AsyncThrowingPublisher``:
/// it turns one `next()` into one `request(.max(1))` and hands the value
/// (or the completion) to the waiting task.
///
/// Protocol: `next()` parks its continuation under the lock, then requests
/// one value (outside the lock); the value resumes exactly that
/// continuation. A completion that arrives while nobody waits is kept for
/// the next `next()`. A value that arrives while nobody waits was never
/// requested (the upstream broke the demand contract) and is dropped.
///
/// Cancellation (of the task, or of the iterator's owner going away)
/// cancels the subscription and resumes a waiting `next()` with `nil`.
///
/// Threading: the upstream may deliver on any thread; the continuation is
/// resumed there. `@unchecked Sendable`: every mutable field is inside the
/// mutex.
@usableFromInline
internal final class AsyncIteratorSubscriber<Input, Failure: Error>: Subscriber, Cancellable, @unchecked Sendable {
    /// What a waiting `next()` receives: a value, the end (`nil`), or a
    /// failure. Boxed unchecked-`Sendable` to cross from the delivering
    /// thread to the task: the value is handed over, never shared.
    @usableFromInline typealias Outcome = UncheckedSendable<Result<Input?, Failure>>

    @usableFromInline
    internal struct State {
        @usableFromInline var subscription: (any Subscription)?
        /// A `next()` waiting for its value.
        @usableFromInline var waiter: CheckedContinuation<Outcome, Never>?
        /// `next()` asked before the subscription arrived.
        @usableFromInline var requestOnSubscription = false
        /// A completion no `next()` has seen yet.
        @usableFromInline var completion: Subscribers.Completion<Failure>?
        /// Completed (and the completion reported) or cancelled: every
        /// further `next()` returns `nil` at once.
        @usableFromInline var done = false

        @inlinable init() {}
    }

    /// What `next()` does once its continuation is parked.
    @usableFromInline
    internal enum NextStep {
        case resume(Outcome)
        case request(any Subscription)
        case wait
    }

    @usableFromInline let state = Mutex(UncheckedSendable(State()))

    @inlinable
    init() {}

    // MARK: Subscriber

    @inlinable
    func receive(subscription: any Subscription) {
        let request = state.withLock { s -> Bool? in
            guard s.value.subscription == nil, !s.value.done else { return nil }
            s.value.subscription = subscription
            defer { s.value.requestOnSubscription = false }
            return s.value.requestOnSubscription
        }
        switch request {
        case nil: subscription.cancel()
        case true?: subscription.request(.max(1))
        case false?: break
        }
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        let waiter = state.withLock { s -> CheckedContinuation<Outcome, Never>? in
            defer { s.value.waiter = nil }
            return s.value.waiter
        }
        waiter?.resume(returning: UncheckedSendable(.success(input)))
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        let waiter = state.withLock { s -> CheckedContinuation<Outcome, Never>? in
            guard !s.value.done, s.value.completion == nil else { return nil }
            s.value.subscription = nil
            guard let waiter = s.value.waiter else {
                s.value.completion = completion
                return nil
            }
            s.value.waiter = nil
            s.value.done = true
            return waiter
        }
        waiter?.resume(returning: Self.outcome(of: completion))
    }

    @inlinable
    static func outcome(of completion: Subscribers.Completion<Failure>) -> Outcome {
        switch completion {
        case .finished: return UncheckedSendable(.success(nil))
        case .failure(let error): return UncheckedSendable(.failure(error))
        }
    }

    // MARK: Iteration

    /// Requests one value and waits for it, the completion, or
    /// cancellation. One `next()` at a time per iterator.
    @inlinable
    func next() async -> Result<Input?, Failure> {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Outcome, Never>) in
                let step = state.withLock { s -> UncheckedSendable<NextStep> in
                    if s.value.done { return UncheckedSendable(.resume(UncheckedSendable(.success(nil)))) }
                    if let completion = s.value.completion {
                        s.value.completion = nil
                        s.value.done = true
                        return UncheckedSendable(.resume(Self.outcome(of: completion)))
                    }
                    if s.value.waiter != nil {
                        violation("AsyncPublisher: next() called while another next() on the same iterator is waiting")
                    }
                    s.value.waiter = waiter
                    guard let subscription = s.value.subscription else {
                        s.value.requestOnSubscription = true
                        return UncheckedSendable(.wait)
                    }
                    return UncheckedSendable(.request(subscription))
                }
                switch step.value {
                case .resume(let outcome): waiter.resume(returning: outcome)
                case .request(let subscription): subscription.request(.max(1))
                case .wait: break
                }
            }.value
        } onCancel: {
            cancel()
        }
    }

    /// Cancels the subscription and ends the iteration: a waiting `next()`
    /// returns `nil`. Idempotent; callable from any thread.
    @inlinable
    func cancel() {
        let released = state.withLock { s -> UncheckedSendable<((any Subscription)?, CheckedContinuation<Outcome, Never>?)> in
            s.value.done = true
            s.value.completion = nil
            defer {
                s.value.subscription = nil
                s.value.waiter = nil
            }
            return UncheckedSendable((s.value.subscription, s.value.waiter))
        }
        released.value.0?.cancel()
        released.value.1?.resume(returning: UncheckedSendable(.success(nil)))
    }
}

/// Held only by an async iterator (and its copies): when the last copy goes
/// away, the iteration can no longer continue, so the subscription is
/// cancelled. Without it, an iterator dropped mid-stream (a `break` out of
/// `for await`) would leave the upstream subscribed.
@usableFromInline
internal final class AsyncIterationOwner<Input, Failure: Error>: Sendable {
    @usableFromInline let subscriber: AsyncIteratorSubscriber<Input, Failure>

    @inlinable
    init(subscriber: AsyncIteratorSubscriber<Input, Failure>) {
        self.subscriber = subscriber
    }

    deinit {
        subscriber.cancel()
    }
}
