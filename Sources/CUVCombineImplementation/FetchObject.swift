import CUVCombine
import HTTPTypes
import Synchronization
import UVCombineCore
import UVCombineHTTPClient
import UVCombineHTTPCore

/// The object behind a `uvc_fetch_t *`: a subscriber to a data task (or to
/// a shared fetch's subject) that calls a C function once, with the
/// response, the error, or `UV_ECANCELED` when the loop is detached or
/// closed first; never after `uvc_fetch_cancel`.
///
/// Phases: `pending` until exactly one of three things claims it: the
/// outcome arriving (`done`), the loop or the shared fetch ending it
/// (`done`, callback with `UV_ECANCELED`), or `uvc_fetch_cancel`
/// (`cancelled`, no callback).
///
/// Cancelling is strict: the callback runs holding the *gate* (re-entrant
/// for the thread holding it, as the data task's own), and `cancel()`
/// claims under the gate, so once it returned the callback is not running
/// and never will. Lock order: the task's or subject's gate, then this
/// gate, then `state` or the loop's fetch registry; the upstream is
/// cancelled only after this gate is released.
///
/// Threading: created and cancelled on any thread; the callback runs on the
/// loop thread (for a created loop closed before it ran, on the thread
/// calling `uvc_loop_close`).
internal final class FetchObject: OpaqueObject, Subscriber, @unchecked Sendable {
    internal typealias Input = (data: HTTPBody, response: HTTPResponse)
    internal typealias Failure = UVURLError

    internal let combineIdentifier = CombineIdentifier()
    internal let loop: LoopObject
    private let callback: uvc_fetch_cb
    private let userData: UnsafeMutableRawPointer?
    /// The task metrics, for a session with `collect_metrics` set; nil otherwise.
    internal let metrics: FetchMetrics?
    /// Orders the `UV_ECANCELED` callbacks of a detach or close; set by the
    /// loop's registry.
    internal var sequence = 0

    private enum Phase {
        case pending
        /// The callback ran or is running (outcome, or `UV_ECANCELED`).
        case done
        /// `uvc_fetch_cancel`: the callback never runs.
        case cancelled
    }

    private struct State {
        var phase = Phase.pending
        /// The data task's (or the subject's) subscription, until done.
        var upstream: (any Subscription)?
    }

    private let state = Locked(State())
    /// Held while the callback runs, and by `cancel()` while it claims.
    private let gate = DownstreamGate()

    internal init(loop: LoopObject, callback: @escaping uvc_fetch_cb, userData: UnsafeMutableRawPointer?,
                  metrics: FetchMetrics? = nil) {
        self.loop = loop
        self.callback = callback
        self.userData = userData
        self.metrics = metrics
    }

    /// Runs `body` holding the gate; re-entrant for the thread holding it
    /// (a callback cancelling its own fetch).
    private func withGate<Result>(_ body: () -> Result) -> Result {
        gate.withGate { _ in body() }
    }

    // MARK: Subscriber (loop thread, or the thread subscribing)

    internal func receive(subscription: any Subscription) {
        let accepted = state.withLock { state -> Bool in
            guard state.phase == .pending, state.upstream == nil else { return false }
            state.upstream = subscription
            return true
        }
        if accepted {
            subscription.request(.unlimited)
        } else {
            subscription.cancel()
        }
    }

    internal func receive(_ input: Input) -> Subscribers.Demand {
        withGate {
            guard claim() else { return }
            FetchResult.withResponse(input.response, body: input.data) { response in
                FetchResult.withNoError { error in
                    callback(pointer, Status.ok, response, error, userData)
                }
            }
        }
        return .none
    }

    internal func receive(completion: Subscribers.Completion<UVURLError>) {
        withGate {
            guard claim() else { return }
            switch completion {
            case .failure(let failure):
                deliverFailure(status: FetchResult.status(for: failure.code), uvCode: FetchResult.uvCode(of: failure),
                               message: failure.description)
            case .finished:
                // A data task sends its value before finishing; a subject
                // finishes a subscriber that came after the value.
                deliverFailure(status: FetchResult.status(for: .badServerResponse), uvCode: 0,
                               message: "the fetch finished without a response")
            }
        }
    }

    /// Marks the fetch done if it is pending, and lets go of the upstream
    /// and the registry entry. Under the gate.
    private func claim() -> Bool {
        let claimed = state.withLock { state -> Bool in
            guard state.phase == .pending else { return false }
            state.phase = .done
            state.upstream = nil
            return true
        }
        if claimed { loop.unregister(self) }
        return claimed
    }

    /// Calls the callback with an error and no response. Under the gate.
    private func deliverFailure(status: Int32, uvCode: Int32, message: String) {
        FetchResult.withNoResponse { response in
            FetchResult.withError(status: status, uvCode: uvCode, message: message) { error in
                callback(pointer, status, response, error, userData)
            }
        }
    }

    // MARK: The C side

    /// `uvc_fetch_cancel`: 0 while pending (the callback never runs),
    /// `UV_EALREADY` after. Any thread.
    internal func cancel() -> Int32 {
        let taken = withGate {
            state.withLock { state -> (any Subscription)?? in
                guard state.phase == .pending else { return nil }
                state.phase = .cancelled
                defer { state.upstream = nil }
                return state.upstream
            }
        }
        guard let taken else { return Status.already }
        loop.unregister(self)
        taken?.cancel()
        return Status.ok
    }

    /// Ends a pending fetch with `UV_ECANCELED` (the loop's detach or
    /// close, a shared fetch's cancel): the callback runs now, on the
    /// calling thread, which is the loop thread. Does nothing otherwise.
    internal func end(message: String) {
        var taken: (any Subscription)?
        withGate {
            let upstream = state.withLock { state -> (any Subscription)?? in
                guard state.phase == .pending else { return nil }
                state.phase = .done
                defer { state.upstream = nil }
                return state.upstream
            }
            guard let upstream else { return }
            taken = upstream
            loop.unregister(self)
            deliverFailure(status: Status.cancelled, uvCode: 0, message: message)
        }
        taken?.cancel()
    }
}
