import CUVCombine
import HTTPTypes
import Synchronization
import UVCombineCore
import UVCombineHTTPClient
import UVCombineHTTPCore

/// The object behind a `uvc_shared_fetch_t *`: one data task multicast
/// through a ``PassthroughSubject`` (Combine's `multicast` + `connect()`),
/// so that one request's response reaches every subscribed ``FetchObject``.
///
/// Phases: `idle` (subscribers attach) → `started` (the connection is
/// made on the loop) → `cancelled`. From start until the subject completed
/// (a watcher subscribed before any C subscriber reports it), the loop
/// holds a started shared fetch (``LoopObject/register(shared:)``), so a C
/// host may free it right after starting; a detach or close ends it
/// (``loopEnded()``). The watcher's subscription is cancelled when this
/// object goes (a subject keeps its subscribers, and they it, until they
/// cancel or it completes).
///
/// Threading: any thread; the connection is made on the loop thread, where
/// the subscribers' callbacks run.
internal final class SharedFetchObject: OpaqueObject, @unchecked Sendable {
    internal typealias Output = (data: HTTPBody, response: HTTPResponse)
    internal typealias Multicast = Publishers.Multicast<BodyTaskPublisher<HTTPBody>,
                                                        PassthroughSubject<Output, UVURLError>>

    private enum Phase {
        case idle
        case started
        case cancelled
    }

    private struct State {
        var phase = Phase.idle
        /// Every subscriber, in order (each ignores what comes after it
        /// completed or was cancelled).
        var subscribers: [FetchObject] = []
        /// The multicast's connection, once made.
        var connection: (any Cancellable)?
        /// The loop was detached or closed: no connection is kept.
        var loopEnded = false
    }

    internal let loop: LoopObject
    private let multicast: Multicast
    private let watcher = CompletionWatcher()
    private let state = Locked(State())

    internal init(session: SessionObject, request: FetchRequest) {
        loop = session.loop
        multicast = session.session.bodyTaskPublisher(for: request.request, bytes: request.body)
            .multicast(subject: PassthroughSubject<Output, UVURLError>())
        watcher.owner = self
        multicast.receive(subscriber: watcher)
    }

    deinit {
        watcher.cancel()
    }

    /// `uvc_shared_fetch_subscribe`: attaches `fetch` while idle (nothing
    /// flows before the connection, so nothing is delivered here).
    internal func subscribe(_ fetch: FetchObject) -> Int32 {
        var status = Status.ok
        let active = loop.whileActive {
            status = state.withLock { state -> Int32 in
                switch state.phase {
                case .idle: break
                case .started: return Status.already
                case .cancelled: return Status.cancelled
                }
                state.subscribers.append(fetch)
                loop.register(fetch)
                multicast.receive(subscriber: fetch)
                return Status.ok
            }
        }
        return active == Status.ok ? status : active
    }

    /// `uvc_shared_fetch_start`: connects in a later loop iteration.
    internal func start() -> Int32 {
        var status = Status.ok
        let active = loop.whileActive {
            status = state.withLock { state -> Int32 in
                switch state.phase {
                case .idle: break
                case .started: return Status.already
                case .cancelled: return Status.cancelled
                }
                state.phase = .started
                loop.register(shared: self)
                loop.loop.schedule(options: nil) { self.connect() }
                return Status.ok
            }
        }
        return active == Status.ok ? status : active
    }

    /// Makes the connection (outside the lock: a failure the session
    /// reports at once reaches the subscribers inside `connect()`, and
    /// their callbacks may call `cancel()`). Loop thread.
    private func connect() {
        guard state.withLock({ $0.phase == .started && !$0.loopEnded }) else { return }
        let connection = multicast.connect()
        let kept = state.withLock { state -> Bool in
            guard state.phase == .started, !state.loopEnded else { return false }
            state.connection = connection
            return true
        }
        if !kept { connection.cancel() }
    }

    /// `uvc_shared_fetch_cancel`: cancels the connection now; the waiting
    /// subscribers get `UV_ECANCELED` in a later iteration.
    internal func cancel() -> Int32 {
        let taken = state.withLock { state -> (connection: (any Cancellable)?, subscribers: [FetchObject])? in
            guard state.phase != .cancelled else { return nil }
            state.phase = .cancelled
            defer {
                state.connection = nil
                state.subscribers = []
            }
            return (state.connection, state.subscribers)
        }
        guard let taken else { return Status.already }
        loop.unregister(shared: self)
        taken.connection?.cancel()
        let subscribers = taken.subscribers
        if !subscribers.isEmpty {
            // Not accepted once the loop is detached or closed: the loop
            // then ended every subscriber itself.
            _ = loop.whileActive {
                loop.loop.schedule(options: nil) {
                    for subscriber in subscribers { subscriber.end(message: "the shared fetch was cancelled") }
                }
            }
        }
        return Status.ok
    }

    /// `uvc_shared_fetch_free`: cancels a shared fetch that never started.
    internal func releaseFromC() {
        let idle = state.withLock { $0.phase == .idle }
        if idle { _ = cancel() }
    }

    /// The loop's detach or close (which ends the subscribers itself):
    /// drops the connection. The phase stays, so the host's first cancel
    /// still answers 0. Loop thread.
    internal func loopEnded() {
        let connection = state.withLock { state -> (any Cancellable)? in
            state.loopEnded = true
            defer { state.connection = nil }
            return state.connection
        }
        connection?.cancel()
    }

    /// The subject completed: every subscriber got the outcome.
    fileprivate func subjectCompleted() {
        loop.unregister(shared: self)
    }
}

/// The shared fetch's first subscriber: it tells its owner when the
/// subject completed. Holds the owner weakly (the owner holds it, and the
/// subject holds it until cancelled or completed).
private final class CompletionWatcher: Subscriber, @unchecked Sendable {
    typealias Input = SharedFetchObject.Output
    typealias Failure = UVURLError

    let combineIdentifier = CombineIdentifier()
    /// Set once, before subscribing.
    weak var owner: SharedFetchObject?
    private let subscription = Locked<(any Subscription)?>(nil)

    func receive(subscription: any Subscription) {
        self.subscription.withLock { $0 = subscription }
        subscription.request(.unlimited)
    }

    /// Leaves the subject (idempotent).
    func cancel() {
        subscription.withLock { $0.take() }?.cancel()
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        .none
    }

    func receive(completion: Subscribers.Completion<UVURLError>) {
        subscription.withLock { $0 = nil }
        owner?.subjectCompleted()
    }
}
