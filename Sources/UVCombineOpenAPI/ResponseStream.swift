#if OpenAPI
import FoundationEssentials
import HTTPTypes
import UVCombineCore
import UVCombineHTTP
import UVCombineLoop

/// The subscriber behind one operation: it holds the session's streamed
/// response (``UVURLSession/BytesPublisher``) and hands its parts to the
/// transport, one unit of demand per part asked for.
///
/// Demand is the backpressure: `request(.max(1))` is sent only when a
/// caller waits in ``nextPart()``, so while nobody pulls the response
/// body, the session stops reading the socket and TCP flow control stops
/// the server (docs/url-session.md, "Streaming").
///
/// States: `open` (no waiter, or one waiter parked), then `ended` with
/// the outcome not yet reported (a failure, or the end), then `reported`
/// (every later `nextPart()` returns `nil`). At most one waiter: the
/// transport's calls are sequential (the head, then the body's iterator,
/// which `HTTPBody` allows once).
///
/// Threading: `nextPart()` from the consuming task; the `Subscriber`
/// methods on the loop thread; `cancel()` from any thread, never blocking:
/// a task's cancellation handler runs under the runtime's lock on that
/// task, and a strict cancel from another thread would wait for a delivery
/// that is itself resuming that task, so the cancel is sent to the loop
/// unless already there. `@unchecked Sendable`: every mutable field is in
/// the lock (`Locked`), which is never held while calling out.
internal final class ResponseStream: Subscriber, @unchecked Sendable {
    internal typealias Input = UVURLSession.ResponsePart
    internal typealias Failure = UVURLError
    internal typealias Outcome = Result<UVURLSession.ResponsePart?, any Error>

    private enum Phase {
        case open
        /// Ended; the outcome waits for the next `nextPart()`.
        case ended(Outcome)
        /// The end or the failure was reported.
        case reported
    }

    private struct State {
        var phase = Phase.open
        var subscription: (any Subscription)?
        var waiter: CheckedContinuation<Outcome, Never>?
        /// A part that arrived with nobody waiting (only if the session
        /// sent more than asked; kept rather than lost).
        var pending: UVURLSession.ResponsePart?
        /// A `nextPart()` came before the subscription: ask on arrival.
        var requestOnSubscription = false
    }

    private enum Step {
        case resume(Outcome)
        case request(any Subscription)
        case wait
    }

    private let state = Locked(State())
    private let loop: UVLoop

    internal init(loop: UVLoop) {
        self.loop = loop
    }

    // MARK: Consumer side

    /// The next part (the head first, then body parts), or `nil` after
    /// the end; throws the session's ``UVURLError``, or
    /// `CancellationError` when the waiting task is cancelled (which
    /// cancels the request).
    internal func nextPart() async throws -> UVURLSession.ResponsePart? {
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Outcome, Never>) in
                park(waiter)
            }
        } onCancel: {
            cancel()
        }
        return try outcome.get()
    }

    private func park(_ waiter: CheckedContinuation<Outcome, Never>) {
        let step = state.withLock { state -> Step in
            precondition(state.waiter == nil, "UVURLSessionTransport: a response body was read by two tasks at once")
            if let part = state.pending {
                state.pending = nil
                return .resume(.success(part))
            }
            switch state.phase {
            case .ended(let outcome):
                state.phase = .reported
                return .resume(outcome)
            case .reported:
                return .resume(.success(nil))
            case .open:
                state.waiter = waiter
                guard let subscription = state.subscription else {
                    state.requestOnSubscription = true
                    return .wait
                }
                return .request(subscription)
            }
        }
        switch step {
        case .resume(let outcome): waiter.resume(returning: outcome)
        case .request(let subscription): subscription.request(.max(1))
        case .wait: break
        }
    }

    /// Cancels the request (on the loop thread); a waiting `nextPart()`
    /// throws `CancellationError`, and so does the next one. A no-op once
    /// the response ended. Any thread; never blocks; idempotent.
    internal func cancel() {
        let (subscription, waiter) = state.withLock { state -> ((any Subscription)?, CheckedContinuation<Outcome, Never>?) in
            guard case .open = state.phase else { return (nil, nil) }
            let taken = (state.subscription, state.waiter)
            state.subscription = nil
            state.waiter = nil
            state.pending = nil
            state.phase = taken.1 == nil ? .ended(.failure(CancellationError())) : .reported
            return taken
        }
        if let subscription {
            if loop.isInLoop {
                subscription.cancel()
            } else {
                loop.schedule { subscription.cancel() }
            }
        }
        waiter?.resume(returning: .failure(CancellationError()))
    }

    // MARK: Subscriber (the loop thread)

    internal func receive(subscription: any Subscription) {
        let request = state.withLock { state -> Bool? in
            guard case .open = state.phase, state.subscription == nil else { return nil }
            state.subscription = subscription
            defer { state.requestOnSubscription = false }
            return state.requestOnSubscription
        }
        switch request {
        case nil: subscription.cancel()
        case true?: subscription.request(.max(1))
        case false?: break
        }
    }

    internal func receive(_ input: UVURLSession.ResponsePart) -> Subscribers.Demand {
        let waiter = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
            guard let waiter = state.waiter else {
                if case .open = state.phase { state.pending = input }
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: .success(input))
        return .none
    }

    internal func receive(completion: Subscribers.Completion<UVURLError>) {
        let outcome: Outcome
        switch completion {
        case .finished: outcome = .success(nil)
        case .failure(let error): outcome = .failure(error)
        }
        let waiter = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
            guard case .open = state.phase else { return nil }
            state.subscription = nil
            guard let waiter = state.waiter else {
                state.phase = .ended(outcome)
                return nil
            }
            state.waiter = nil
            state.phase = .reported
            return waiter
        }
        waiter?.resume(returning: outcome)
    }
}
#endif
