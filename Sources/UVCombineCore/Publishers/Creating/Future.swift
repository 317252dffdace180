import Synchronization

/// A publisher that eventually produces a single value and then finishes or
/// fails.
///
/// The closure runs at once, in `init`, on the creating thread (a future is
/// eager; wrap it in ``Deferred`` to start it per subscriber). It receives a
/// promise to call with the result, once, from any thread; later calls are
/// ignored. The result is stored: every subscriber, also one that subscribes
/// after the promise was fulfilled, receives the value on its first request
/// (then `.finished`), or the failure right away. Subscriptions describe
/// themselves as `Future`.
///
/// `Promise` is `@Sendable` here (Combine's is not): the promise may be
/// called from any thread, and Swift 6 would otherwise refuse the common
/// call from a dispatched closure. Code written for Combine compiles as is.
///
/// ```swift
/// let roll = Future<Int, Never> { promise in
///     DispatchQueue.global().async { promise(.success(Int.random(in: 1...6))) }
/// }
/// let c = roll.sink { print("rolled \($0)") }
/// ```
public final class Future<Output, Failure: Error>: Publisher {
    /// A closure to call, once, with the future's result.
    public typealias Promise = @Sendable (Result<Output, Failure>) -> Void

    @usableFromInline
    internal struct State {
        @usableFromInline var result: Result<Output, Failure>?
        /// Subscribers waiting for the result; emptied when it arrives.
        @usableFromInline var waiting: ContiguousArray<FutureWaiter<Output, Failure>> = []

        @inlinable
        init() {}
    }

    @usableFromInline internal let state: Locked<State>

    /// Creates a publisher that invokes a promise closure when the publisher
    /// emits an element.
    ///
    /// ```swift
    /// let answer = Future<Int, Never> { promise in promise(.success(42)) }
    /// ```
    public init(_ attemptToFulfill: @escaping (@escaping Promise) -> Void) {
        state = Locked(State())
        // The promise holds the future until it is called or dropped; the
        // future never holds the promise, so there is no cycle.
        let future = UncheckedSendable(self)
        attemptToFulfill { result in future.value.fulfil(result) }
    }

    /// Stores the first result and hands it to every waiting subscriber.
    internal func fulfil(_ result: Result<Output, Failure>) {
        let waiting = state.withLock { s -> ContiguousArray<FutureWaiter<Output, Failure>> in
            guard s.result == nil else { return [] }
            s.result = result
            defer { s.waiting = [] }
            return s.waiting
        }
        for waiter in waiting { waiter.resultArrived(result) }
    }

    /// Attaches `subscriber`. It receives the value on its first request,
    /// or the failure at once, as soon as the promise is fulfilled.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let conduit = FutureConduit<Output, Failure, S>(parent: self, downstream: subscriber)
        subscriber.receive(subscription: conduit)
        // Registered after the subscription went out, so a promise fulfilled
        // on another thread cannot reach the subscriber before it.
        let result = state.withLock { s -> Result<Output, Failure>? in
            if let result = s.result { return result }
            s.waiting.append(conduit)
            return nil
        }
        if let result = result {
            conduit.deliver(result)
        } else if conduit.isFinished {
            // Cancelled from `receive(subscription:)`, before it was listed.
            detach(conduit)
        }
    }

    @usableFromInline
    internal func detach(_ waiter: FutureWaiter<Output, Failure>) {
        state.withLock { s in
            if let i = s.waiting.firstIndex(where: { $0 === waiter }) {
                s.waiting.remove(at: i)
            }
        }
    }

    /// The stored result, once the promise was fulfilled.
    @usableFromInline
    internal func currentResult() -> Result<Output, Failure>? {
        state.withLock { $0.result }
    }
}

// Every piece of mutable state is behind the mutex.
extension Future: @unchecked Sendable where Output: Sendable, Failure: Sendable {}

/// A subscriber waiting for a ``Future``'s result; non-generic over the
/// subscriber type so one list holds them all. Not on a hot path (a future
/// delivers once), so a plain overridden method is fine here.
///
/// `Failure` is unconstrained here (`resultArrived` asks for `Error`), and
/// ``FutureConduit`` names this superclass by its own generic parameters:
/// the runtime then builds the subclass's metadata without a conformance
/// lookup, a scan of every conformance record of the image (see
/// `SubjectConduit`).
@usableFromInline
internal class FutureWaiter<Output, Failure> {
    @inlinable init() {}
    @usableFromInline func resultArrived(_ result: Result<Output, Failure>) where Failure: Error {
        violation("abstract FutureWaiter.resultArrived")
    }
}

/// One subscriber's link to a ``Future``.
///
/// The value goes out once the subscriber has asked for something and the
/// result is known, whichever comes second; a failure goes out as soon as it
/// is known. Both paths claim `finished` under the lock, so exactly one
/// delivers. Once finished or cancelled the conduit lets go of the
/// subscriber and the future (as Combine's does), so a subscriber that
/// keeps its subscription keeps nothing else alive. Lock order: the
/// future's lock may be held while this one is taken, never the reverse.
@usableFromInline
internal final class FutureConduit<Output, Failure, Downstream: Subscriber>: FutureWaiter<Output, Failure>,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == Output, Downstream.Failure == Failure
{

    @usableFromInline
    internal struct State {
        /// Cleared once finished or cancelled.
        @usableFromInline var parent: Future<Output, Failure>?
        /// Cleared once finished or cancelled.
        @usableFromInline var downstream: Downstream?
        @usableFromInline var hasDemand = false
        @usableFromInline var finished = false

        @inlinable
        init(parent: Future<Output, Failure>, downstream: Downstream) {
            self.parent = parent
            self.downstream = downstream
        }
    }

    @usableFromInline let state: Locked<State>

    @inlinable
    init(parent: Future<Output, Failure>, downstream: Downstream) {
        state = Locked(State(parent: parent, downstream: downstream))
    }

    /// Whether the result went out or the subscriber cancelled.
    @inlinable
    var isFinished: Bool { state.withLock { $0.finished } }

    /// Sends `result` if this subscriber may have it now.
    @inlinable
    func deliver(_ result: Result<Output, Failure>) {
        let claimed = state.withLock { s -> (Downstream, Future<Output, Failure>?)? in
            guard !s.finished, let downstream = s.downstream else { return nil }
            if case .success = result, !s.hasDemand { return nil }
            s.finished = true
            // The future stays `parent` while the result is delivered and is
            // let go after, as Combine's conduit does (its mirror shows it
            // during delivery); the subscriber and the demand go now.
            s.downstream = nil
            s.hasDemand = false
            return (downstream, s.parent)
        }
        guard let (downstream, _) = claimed else { return }
        switch result {
        case .success(let value):
            _ = downstream.receive(value)
            downstream.receive(completion: .finished)
        case .failure(let error):
            downstream.receive(completion: .failure(error))
        }
        let parent = state.withLock { s -> Future<Output, Failure>? in
            defer { s.parent = nil }
            return s.parent
        }
        _ = parent // released outside the lock
    }

    @usableFromInline
    override func resultArrived(_ result: Result<Output, Failure>) {
        deliver(result)
    }

    /// Traps on `.none`, as Combine's future subscription does.
    @usableFromInline
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let parent = state.withLock { s -> Future<Output, Failure>? in
            guard !s.finished else { return nil }
            s.hasDemand = true
            return s.parent
        }
        if let result = parent?.currentResult() { deliver(result) }
    }

    @usableFromInline
    func cancel() {
        let taken = state.withLock { s -> (Future<Output, Failure>?, Downstream?) in
            defer {
                s.finished = true
                s.parent = nil
                s.downstream = nil
                s.hasDemand = false
            }
            return (s.parent, s.downstream)
        }
        taken.0?.detach(self)
    }

    @usableFromInline var description: String { "Future" }
    /// `parent`, `downstream`, `hasAnyDemand` and `subject`, as Combine's
    /// future subscription reports them (`nil` once finished or cancelled).
    @usableFromInline var customMirror: Mirror {
        let s = state.withLock { $0 }
        let children: [Mirror.Child] = [
            ("parent", s.parent as Any),
            ("downstream", s.downstream as Any),
            ("hasAnyDemand", s.hasDemand),
            ("subject", s.parent as Any),
        ]
        return Mirror(self, children: children)
    }
    @usableFromInline var playgroundDescription: Any { description }
}
