import Synchronization

extension AsyncSequence {
    /// A publisher that emits the elements of this asynchronous sequence,
    /// honouring demand, then finishes (or fails with the error the
    /// sequence throws).
    ///
    /// UVCombine's own API (Combine cannot publish an `AsyncSequence`), so
    /// it carries a project name: a library that adds its own
    /// `AsyncSequence.publisher` still compiles against UVCombine. Each
    /// subscriber iterates the sequence in its own `Task`, and never faster
    /// than it asks: the task calls `next()` only while the subscriber has
    /// outstanding demand.
    /// Cancelling the subscription cancels the task.
    ///
    /// ```swift
    /// let stream = AsyncStream<Int> { continuation in
    ///     continuation.yield(1)
    ///     continuation.yield(2)
    ///     continuation.finish()
    /// }
    /// let c = stream.uvPublisher.sink { print($0) }
    /// // Prints (from the task's thread): "1", "2"
    /// ```
    @inlinable
    public var uvPublisher: UVAsyncSequencePublisher<Self> {
        UVAsyncSequencePublisher(self)
    }
}

/// A publisher that publishes the elements of an asynchronous sequence.
///
/// Each subscription iterates the sequence from a fresh iterator in its
/// own `Task` (on the global concurrent executor). The task asks the
/// iterator for the next element only while the downstream's demand is
/// above zero, and waits (suspended, holding no thread) for `request`
/// otherwise; so at most one element is in flight and nothing is
/// buffered. `Failure` is the sequence's own failure type: `Never` for
/// `AsyncStream`, the thrown error for throwing sequences.
///
/// Completion: `.finished` when `next()` returns `nil`, `.failure` when it
/// throws. Cancellation: `cancel()` cancels the task (the sequence sees
/// the task's cancellation, e.g. `AsyncStream`'s `onTermination` runs)
/// and nothing more is delivered, not even a completion.
///
/// Threading: elements and the completion are delivered on the task's
/// thread, one at a time; use `receive(on:)` to move them to a loop.
/// The sequence must be safe to iterate from that task, as for any
/// `for await` in a `Task`.
///
/// ```swift
/// let (stream, input) = AsyncStream.makeStream(of: Int.self)
/// let c = UVAsyncSequencePublisher(stream).sink { print($0) }
/// input.yield(1)
/// ```
public struct UVAsyncSequencePublisher<Base: AsyncSequence>: Publisher {
    /// The sequence's element type.
    public typealias Output = Base.Element
    /// The sequence's failure type.
    public typealias Failure = Base.Failure

    /// The asynchronous sequence whose elements are published.
    public let base: Base

    /// Creates a publisher for the elements of `base`.
    ///
    /// ```swift
    /// let p = UVAsyncSequencePublisher(AsyncStream<Int> { $0.finish() })
    /// ```
    @inlinable
    public init(_ base: Base) {
        self.base = base
    }

    /// Sends `subscriber` its subscription, then starts the iterating
    /// task.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let inner = AsyncSequenceSubscription<Base, S>(downstream: subscriber)
        subscriber.receive(subscription: inner)
        inner.start(base)
    }
}

/// The subscription of ``UVAsyncSequencePublisher``: a task that
/// iterates while there is demand.
///
/// The task parks a continuation when the demand is zero; `request` resumes
/// it, `cancel` resumes it with "stop" and cancels the task.
///
/// `@unchecked Sendable`: every mutable field is inside the mutex; the
/// downstream is called only from the task, one call at a time.
@usableFromInline
internal final class AsyncSequenceSubscription<Base: AsyncSequence, Downstream: Subscriber>: Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
    where Downstream.Input == Base.Element, Downstream.Failure == Base.Failure
{
    @usableFromInline
    internal struct State {
        @usableFromInline var demand: Subscribers.Demand = .none
        /// The task, waiting for demand.
        @usableFromInline var waiter: CheckedContinuation<Bool, Never>?
        @usableFromInline var task: Task<Void, Never>?
        @usableFromInline var cancelled = false
        @inlinable init() {}
    }

    @usableFromInline let downstream: Downstream
    @usableFromInline let state = Locked(State())

    @inlinable
    init(downstream: Downstream) {
        self.downstream = downstream
    }

    /// Starts iterating `base` in a new task (unless already cancelled).
    @inlinable
    func start(_ base: Base) {
        // The loop is formed here, where the types are known (so it runs
        // specialised), as a plain closure of a non-generic type; the task
        // then captures only that box, no generic metadata. The closure and
        // the sequence it holds move into the task and are used only there.
        let loop: () async -> Void = { await self.run(base) }
        let task = startTask(UncheckedSendable(loop))
        let cancelled = state.withLock { s -> Bool in
            if s.cancelled { return true }
            s.task = task
            return false
        }
        if cancelled { task.cancel() }
    }

    @inlinable
    func run(_ base: Base) async {
        var iterator = base.makeAsyncIterator()
        while await waitForDemand() {
            let element: Base.Element?
            do {
                element = try await iterator.next(isolation: nil)
            } catch {
                if finish() { downstream.receive(completion: .failure(error)) }
                return
            }
            guard let element else {
                if finish() { downstream.receive(completion: .finished) }
                return
            }
            guard takeOne() else { return }
            let more = downstream.receive(element)
            if more.rawValue > 0 { add(more) }
        }
    }

    /// True once there is demand; false when cancelled.
    @inlinable
    func waitForDemand() async -> Bool {
        let ready = state.withLock { s -> Bool? in
            if s.cancelled { return false }
            return s.demand.rawValue > 0 ? true : nil
        }
        if let ready { return ready }
        return await withCheckedContinuation { (waiter: CheckedContinuation<Bool, Never>) in
            let ready = state.withLock { s -> Bool? in
                if s.cancelled { return false }
                if s.demand.rawValue > 0 { return true }
                s.waiter = waiter
                return nil
            }
            if let ready { waiter.resume(returning: ready) }
        }
    }

    /// Consumes one unit of demand for an element about to go out; false
    /// when cancelled meanwhile.
    @inlinable
    func takeOne() -> Bool {
        state.withLock { s -> Bool in
            guard !s.cancelled else { return false }
            if !s.demand.isUnlimited { s.demand -= 1 }
            return true
        }
    }

    /// Marks the end before the completion goes out; false when cancelled.
    @inlinable
    func finish() -> Bool {
        state.withLock { s -> Bool in
            guard !s.cancelled else { return false }
            s.cancelled = true
            s.task = nil
            return true
        }
    }

    @inlinable
    func add(_ demand: Subscribers.Demand) {
        let waiter = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            guard !s.cancelled else { return nil }
            s.demand += demand
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: true)
    }

    // MARK: Subscription

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        add(demand)
    }

    @inlinable
    func cancel() {
        let released = state.withLock { s -> (CheckedContinuation<Bool, Never>?, Task<Void, Never>?) in
            guard !s.cancelled else { return (nil, nil) }
            s.cancelled = true
            defer {
                s.waiter = nil
                s.task = nil
            }
            return (s.waiter, s.task)
        }
        released.1?.cancel()
        released.0?.resume(returning: false)
    }

    @usableFromInline var description: String { "AsyncSequence" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}

/// Starts `body` in a new unstructured task on the global concurrent
/// executor. Non-generic, so the task's closure captures no generic
/// metadata of its caller. `body` is handed over to the task and run only
/// there.
@usableFromInline
internal func startTask(_ body: UncheckedSendable<() async -> Void>) -> Task<Void, Never> {
    Task { await body.value() }
}
