import Synchronization

/// The subscriber behind ``AsyncPublisher`` and ``AsyncThrowingPublisher``:
/// it turns one `next()` into one `request(.max(1))` and hands the value
/// (or the completion) to the waiting task.
///
/// Protocol: `next()` parks its continuation under the lock, then requests
/// one value (outside the lock); values resume the waiting calls in the
/// order they started waiting. Several tasks may wait in `next()` on one
/// iterator at once, as Combine allows: each waiting call has requested
/// one value. A completion resumes every waiting call, as Combine's does:
/// the oldest one gets the completion (a failure is thrown there) and the
/// others return `nil`; a completion that arrives while nobody waits is
/// kept for the next `next()`. A value that arrives before the subscription
/// resumes every waiting call with `nil` (the iteration itself goes on); a
/// value that arrives while subscribed and nobody waits was never requested
/// and traps, as Combine's precondition does.
///
/// Cancellation (of a task waiting in `next()`, or of the iterator's owner
/// going away) cancels the subscription and resumes every waiting `next()`
/// with `nil`, as Combine does. A cancelled task's handler only ends the
/// waiting; the task cancels the subscription once it runs again (see
/// `next()` for why).
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
    @usableFromInline typealias Waiter = CheckedContinuation<Outcome, Never>

    @usableFromInline
    internal struct State {
        @usableFromInline var subscription: (any Subscription)?
        /// The `next()` calls waiting for a value, oldest first.
        @usableFromInline var waiters = RingBuffer<Waiter>()
        /// Values asked for by `next()` before the subscription arrived.
        @usableFromInline var requestOnSubscription: Subscribers.Demand = .none
        /// A completion no `next()` has seen yet.
        @usableFromInline var completion: Subscribers.Completion<Failure>?
        /// Completed (and the completion reported) or cancelled: every
        /// further `next()` returns `nil` at once.
        @usableFromInline var done = false

        @inlinable init() {}

        /// Takes every waiting continuation.
        @inlinable
        mutating func takeWaiters() -> RingBuffer<Waiter> {
            let taken = waiters
            waiters = RingBuffer()
            return taken
        }
    }

    /// What `next()` does once its continuation is parked.
    @usableFromInline
    internal enum NextStep {
        case resume(Outcome)
        case request(any Subscription)
        case wait
    }

    @usableFromInline let state = Locked(State())

    @inlinable
    init() {}

    // MARK: Subscriber

    @inlinable
    func receive(subscription: any Subscription) {
        let request = state.withLock { s -> Subscribers.Demand? in
            guard s.subscription == nil, !s.done else { return nil }
            s.subscription = subscription
            defer { s.requestOnSubscription = .none }
            return s.requestOnSubscription
        }
        guard let request else {
            subscription.cancel()
            return
        }
        if request.rawValue > 0 { subscription.request(request) }
    }

    /// What a value does, decided under the lock.
    @usableFromInline
    internal enum ValueStep {
        case deliver(Waiter)
        case endWaiting(RingBuffer<Waiter>)
        case unrequested
        case ignore
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        let step = state.withLock { s -> ValueStep in
            // Ended (cancelled, or a cancelled task ended the waiting): a
            // value requested before the end may still be in flight.
            if s.done { return .ignore }
            // Before the subscription (or after a completion kept for the
            // next `next()`): Combine answers every waiting call with nil
            // and leaves the iteration as it was.
            guard s.subscription != nil else { return .endWaiting(s.takeWaiters()) }
            guard let waiter = s.waiters.popFirst() else { return .unrequested }
            return .deliver(waiter)
        }
        switch step {
        case .deliver(let waiter):
            waiter.resume(returning: UncheckedSendable(.success(input)))
        case .endWaiting(var waiters):
            while let waiter = waiters.popFirst() { waiter.resume(returning: UncheckedSendable(.success(nil))) }
        case .unrequested:
            violation("values: received a value no next() requested (demand is one value per waiting next())")
        case .ignore:
            break
        }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        let waiters = state.withLock { s -> RingBuffer<Waiter>? in
            guard !s.done, s.completion == nil else { return nil }
            s.subscription = nil
            guard !s.waiters.isEmpty else {
                s.completion = completion
                return nil
            }
            s.done = true
            return s.takeWaiters()
        }
        guard var waiters, let oldest = waiters.popFirst() else { return }
        // Combine's rule: the oldest waiting call gets the completion (a
        // failure is thrown once), the others end with nil.
        oldest.resume(returning: Self.outcome(of: completion))
        while let waiter = waiters.popFirst() { waiter.resume(returning: UncheckedSendable(.success(nil))) }
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
    /// cancellation. Several calls may wait at once (from several tasks);
    /// each requested one value and they are served in order.
    @inlinable
    func next() async -> Result<Input?, Failure> {
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: Waiter) in
                let step = state.withLock { s -> NextStep in
                    if s.done { return .resume(UncheckedSendable(.success(nil))) }
                    if let completion = s.completion {
                        s.completion = nil
                        s.done = true
                        return .resume(Self.outcome(of: completion))
                    }
                    s.waiters.append(waiter)
                    guard let subscription = s.subscription else {
                        s.requestOnSubscription += 1
                        return .wait
                    }
                    return .request(subscription)
                }
                switch step {
                case .resume(let outcome): waiter.resume(returning: outcome)
                case .request(let subscription): subscription.request(.max(1))
                case .wait: break
                }
            }.value
        } onCancel: {
            // Only ends the waiting here. The handler runs under the task's
            // status lock, and a strict `cancel()` of the subscription can
            // wait for a delivery in flight on another thread, which may be
            // resuming this very task (and needs that lock): a deadlock.
            endIteration()
        }
        // Outside the handler, nothing is held: cancelling may wait.
        if Task.isCancelled { cancel() }
        return outcome
    }

    /// Ends the iteration without touching the subscription: every waiting
    /// `next()` returns `nil` and later ones too. Never blocks (safe in a
    /// cancellation handler); `cancel()` follows from the task itself.
    @inlinable
    func endIteration() {
        let waiters = state.withLock { s -> RingBuffer<Waiter> in
            s.done = true
            s.completion = nil
            return s.takeWaiters()
        }
        var taken = waiters
        while let waiter = taken.popFirst() { waiter.resume(returning: UncheckedSendable(.success(nil))) }
    }

    /// Cancels the subscription and ends the iteration: every waiting
    /// `next()` returns `nil`. Idempotent; callable from any thread.
    @inlinable
    func cancel() {
        let released = state.withLock { s -> ((any Subscription)?, RingBuffer<Waiter>) in
            s.done = true
            s.completion = nil
            defer { s.subscription = nil }
            return (s.subscription, s.takeWaiters())
        }
        released.0?.cancel()
        var waiters = released.1
        while let waiter = waiters.popFirst() { waiter.resume(returning: UncheckedSendable(.success(nil))) }
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
