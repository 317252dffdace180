import Synchronization

extension Future where Failure == Never {
    /// Creates a future that runs `operation` in a new `Task` at once and
    /// publishes its result.
    ///
    /// Like every `Future`, it starts eagerly, runs once, and replays the
    /// result to every subscriber. The task runs on the global concurrent
    /// executor; subscribers receive the value on that task's thread
    /// (use `receive(on:)` to move it). Cancelling a subscription does not
    /// cancel the task.
    ///
    /// ```swift
    /// let answer = Future { await computeAnswer() }
    /// let c = answer.sink { print($0) }
    /// ```
    public convenience init(_ operation: @escaping @Sendable () async -> Output) {
        self.init { promise in
            Task {
                let value = await operation()
                promise(.success(value))
            }
        }
    }

    /// The future's value, awaited.
    ///
    /// Subscribes and suspends until the promise is fulfilled (at once if it
    /// already was). A future that cannot fail has no way to report
    /// cancellation, so this waits for the value even if the task is
    /// cancelled, as awaiting a `Task`'s value does.
    ///
    /// ```swift
    /// let value = await Future<Int, Never> { promise in promise(.success(7)) }.value
    /// // value == 7
    /// ```
    public var value: Output {
        get async {
            let subscriber = FutureValueSubscriber<Output, Never>()
            let outcome = await withCheckedContinuation { continuation in
                subscriber.attach(continuation)
                receive(subscriber: subscriber)
            }
            switch outcome.value {
            case .success(let value): return value
            // Only `cancel()` produces a failure, and nothing cancels here.
            case .failure: violation("Future<_, Never>.value resumed without a value")
            }
        }
    }
}

extension Future where Failure == any Error {
    /// Creates a future that runs the throwing `operation` in a new `Task` at
    /// once and publishes its result, or fails with the error it throws.
    ///
    /// Like every `Future`, it starts eagerly, runs once, and replays the
    /// result to every subscriber. The task runs on the global concurrent
    /// executor; subscribers receive the result on that task's thread.
    /// Cancelling a subscription does not cancel the task.
    ///
    /// ```swift
    /// let page = Future { try await download(url) }
    /// let c = page.sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    public convenience init(_ operation: @escaping @Sendable () async throws -> Output) {
        self.init { promise in
            Task {
                do {
                    let value = try await operation()
                    promise(.success(value))
                } catch {
                    promise(.failure(error))
                }
            }
        }
    }
}

extension Future {
    /// The future's value, awaited; throws the future's failure.
    ///
    /// Subscribes and suspends until the promise is fulfilled (at once if it
    /// already was). If the awaiting task is cancelled first, the
    /// subscription is cancelled and `CancellationError` is thrown.
    ///
    /// ```swift
    /// struct Oops: Error {}
    /// let future = Future<Int, Oops> { promise in promise(.failure(Oops())) }
    /// do { _ = try await future.value } catch { print(error) }
    /// // Prints: "Oops()"
    /// ```
    public var value: Output {
        get async throws {
            let subscriber = FutureValueSubscriber<Output, Failure>()
            let outcome = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    subscriber.attach(continuation)
                    receive(subscriber: subscriber)
                }.value
            } onCancel: {
                // Resumes the caller only: the handler runs under the task's
                // status lock, where a cancel that waits for a delivery in
                // flight (resuming this task) would deadlock.
                subscriber.endWaiting()
            }
            if Task.isCancelled { subscriber.cancel() }
            return try outcome.get()
        }
    }
}

/// Awaits a ``Future``'s result for `value`: requests `.unlimited`, resumes
/// its continuation exactly once with the value, the failure, or (when
/// cancelled) `CancellationError`.
///
/// `@unchecked Sendable`: every mutable field is inside the mutex.
@usableFromInline
internal final class FutureValueSubscriber<Input, Failure: Error>: Subscriber, @unchecked Sendable {
    @usableFromInline typealias Outcome = UncheckedSendable<Result<Input, any Error>>

    @usableFromInline
    internal struct State {
        @usableFromInline var continuation: CheckedContinuation<Outcome, Never>?
        @usableFromInline var subscription: (any Subscription)?
        @usableFromInline var cancelled = false
        @inlinable init() {}
    }

    @usableFromInline let state = Locked(State())

    @inlinable
    init() {}

    /// Stores the continuation to resume; resumes it at once if the task was
    /// cancelled already.
    @usableFromInline
    func attach(_ continuation: CheckedContinuation<Outcome, Never>) {
        let cancelled = state.withLock { s -> Bool in
            if s.cancelled { return true }
            s.continuation = continuation
            return false
        }
        if cancelled { continuation.resume(returning: UncheckedSendable(.failure(CancellationError()))) }
    }

    @usableFromInline
    func receive(subscription: any Subscription) {
        let accepted = state.withLock { s -> Bool in
            guard s.subscription == nil, !s.cancelled else { return false }
            s.subscription = subscription
            return true
        }
        if accepted {
            subscription.request(.unlimited)
        } else {
            subscription.cancel()
        }
    }

    @usableFromInline
    func receive(_ input: Input) -> Subscribers.Demand {
        resume(with: .success(input))
        return .none
    }

    @usableFromInline
    func receive(completion: Subscribers.Completion<Failure>) {
        if case .failure(let error) = completion {
            resume(with: .failure(error))
        }
        // `.finished` follows the value, which already resumed.
    }

    /// Cancels the subscription; a waiting `value` throws
    /// `CancellationError`.
    @usableFromInline
    func cancel() {
        let released = state.withLock { s -> (any Subscription)? in
            s.cancelled = true
            defer { s.subscription = nil }
            return s.subscription
        }
        released?.cancel()
        resume(with: .failure(CancellationError()))
    }

    /// Resumes the waiting caller with `CancellationError` and refuses
    /// what arrives later, without touching the subscription (never
    /// blocks: safe in a cancellation handler).
    @usableFromInline
    func endWaiting() {
        state.withLock { $0.cancelled = true }
        resume(with: .failure(CancellationError()))
    }

    @usableFromInline
    func resume(with result: Result<Input, any Error>) {
        let continuation = state.withLock { s -> CheckedContinuation<Outcome, Never>? in
            defer { s.continuation = nil }
            return s.continuation
        }
        continuation?.resume(returning: UncheckedSendable(result))
    }
}
