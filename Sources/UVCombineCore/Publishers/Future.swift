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
public final class Future<Output, Failure: Error>: Publisher, ConduitParent {
    /// A closure to call, once, with the future's result.
    public typealias Promise = @Sendable (Result<Output, Failure>) -> Void

    @usableFromInline
    internal struct State {
        @usableFromInline var result: Result<Output, Failure>?
        /// Subscribers waiting for the result; emptied when it arrives.
        @usableFromInline var conduits: ConduitList<Output, Failure> = .empty

        @inlinable
        init() {}
    }

    @usableFromInline internal let state: Mutex<UncheckedSendable<State>>

    /// Creates a publisher that invokes a promise closure when the publisher
    /// emits an element.
    ///
    /// ```swift
    /// let answer = Future<Int, Never> { promise in promise(.success(42)) }
    /// ```
    public init(_ attemptToFulfill: @escaping (@escaping Promise) -> Void) {
        state = Mutex(UncheckedSendable(State()))
        // The promise holds the future until it is called or dropped; the
        // future never holds the promise, so there is no cycle.
        let future = UncheckedSendable(self)
        attemptToFulfill { result in future.value.fulfil(result) }
    }

    /// Stores the first result and hands it to every waiting subscriber.
    internal func fulfil(_ result: Result<Output, Failure>) {
        let waiting = state.withLock { s -> UncheckedSendable<ConduitList<Output, Failure>> in
            guard s.value.result == nil else { return UncheckedSendable(.empty) }
            s.value.result = result
            let waiting = s.value.conduits
            s.value.conduits = .empty
            return UncheckedSendable(waiting)
        }
        switch result {
        case .success(let value): waiting.value.forEach { $0.offer(value) }
        case .failure(let error): waiting.value.forEach { $0.finish(.failure(error)) }
        }
    }

    /// Attaches `subscriber`. It receives the value on its first request,
    /// or the failure at once, as soon as the promise is fulfilled.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let conduit = FutureConduit(parent: self, downstream: subscriber)
        subscriber.receive(subscription: conduit)
        // Registered after the subscription went out, so a promise fulfilled
        // on another thread cannot reach the subscriber before it.
        let result = state.withLock { s -> UncheckedSendable<Result<Output, Failure>?> in
            if let result = s.value.result { return UncheckedSendable(result) }
            s.value.conduits.insert(conduit)
            return UncheckedSendable(nil)
        }
        if let result = result.value {
            conduit.deliver(result)
        } else if conduit.isFinished {
            // Cancelled from `receive(subscription:)`, before it was listed.
            detach(conduit)
        }
    }

    @usableFromInline
    internal func detach(_ conduit: ConduitBase<Output, Failure>) {
        state.withLock { $0.value.conduits.remove(conduit) }
    }

    @usableFromInline
    internal func latestValue() -> Output? { nil }

    /// The stored result, once the promise was fulfilled.
    @usableFromInline
    internal func currentResult() -> Result<Output, Failure>? {
        state.withLock { UncheckedSendable($0.value.result) }.value
    }
}

// Every piece of mutable state is behind the mutex.
extension Future: @unchecked Sendable where Output: Sendable, Failure: Sendable {}

/// One subscriber's link to a ``Future``.
///
/// The value goes out once the subscriber has asked for something and the
/// result is known, whichever comes second; a failure goes out as soon as it
/// is known. Both paths claim `finished` under the lock, so exactly one
/// delivers. Lock order: the future's lock may be held while this one is
/// taken, never the reverse.
@usableFromInline
internal final class FutureConduit<Downstream: Subscriber>: ConduitBase<Downstream.Input, Downstream.Failure>,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
    @usableFromInline typealias Output = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline
    internal struct State {
        /// Cleared once finished or cancelled.
        @usableFromInline var parent: Future<Output, Failure>?
        @usableFromInline var hasDemand = false
        @usableFromInline var finished = false

        @inlinable
        init(parent: Future<Output, Failure>) {
            self.parent = parent
        }
    }

    @usableFromInline let downstream: Downstream
    @usableFromInline let state: Mutex<UncheckedSendable<State>>

    @inlinable
    init(parent: Future<Output, Failure>, downstream: Downstream) {
        self.downstream = downstream
        state = Mutex(UncheckedSendable(State(parent: parent)))
        super.init(deliver: { base, value in
            unsafeDowncast(base, to: FutureConduit<Downstream>.self).deliver(.success(value))
        })
    }

    /// Whether the result went out or the subscriber cancelled.
    @inlinable
    var isFinished: Bool { state.withLock { $0.value.finished } }

    /// Sends `result` if this subscriber may have it now.
    @inlinable
    func deliver(_ result: Result<Output, Failure>) {
        let send = state.withLock { s -> Bool in
            guard !s.value.finished else { return false }
            if case .success = result, !s.value.hasDemand { return false }
            s.value.finished = true
            s.value.parent = nil
            return true
        }
        guard send else { return }
        switch result {
        case .success(let value):
            _ = downstream.receive(value)
            downstream.receive(completion: .finished)
        case .failure(let error):
            downstream.receive(completion: .failure(error))
        }
    }

    @usableFromInline
    override func finish(_ completion: Subscribers.Completion<Failure>) {
        if case .failure(let error) = completion { deliver(.failure(error)) }
    }

    @usableFromInline
    override func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let parent = state.withLock { s -> Future<Output, Failure>? in
            guard !s.value.finished else { return nil }
            s.value.hasDemand = true
            return s.value.parent
        }
        if let result = parent?.currentResult() { deliver(result) }
    }

    @usableFromInline
    override func cancel() {
        let parent = state.withLock { s -> Future<Output, Failure>? in
            let parent = s.value.parent
            s.value.finished = true
            s.value.parent = nil
            return parent
        }
        parent?.detach(self)
    }

    @usableFromInline var description: String { "Future" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: ["downstream": downstream]) }
    @usableFromInline var playgroundDescription: Any { description }
}
