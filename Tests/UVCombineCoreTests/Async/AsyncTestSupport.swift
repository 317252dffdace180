import Synchronization
import UVCombineCore

/// A publisher for async tests: like `TestPublisher`, but every request and
/// cancel of its latest subscription is also reported on `events`, so a
/// test can `await` the moment an async consumer asks for a value instead of
/// sleeping.
final class SignallingPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    // @unchecked Sendable: mutable state is inside the mutex; the stream's
    // continuation is Sendable.
    enum Event: Equatable, Sendable {
        case request(Subscribers.Demand)
        case cancel
    }

    private final class Link: Subscription, @unchecked Sendable {
        let send: (Output) -> Subscribers.Demand
        let complete: (Subscribers.Completion<Failure>) -> Void
        let report: @Sendable (Event) -> Void

        init(send: @escaping (Output) -> Subscribers.Demand,
             complete: @escaping (Subscribers.Completion<Failure>) -> Void,
             report: @escaping @Sendable (Event) -> Void) {
            self.send = send
            self.complete = complete
            self.report = report
        }

        func request(_ demand: Subscribers.Demand) { report(.request(demand)) }
        func cancel() { report(.cancel) }
    }

    let events: AsyncStream<Event>
    private let eventInput: AsyncStream<Event>.Continuation
    private let link = Mutex<LockedBox<Link?>>(LockedBox(nil))

    init() {
        (events, eventInput) = AsyncStream.makeStream(of: Event.self)
    }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let input = eventInput
        let link = Link(send: { subscriber.receive($0) },
                        complete: { subscriber.receive(completion: $0) },
                        report: { input.yield($0) })
        self.link.withLock { $0.value = link }
        subscriber.receive(subscription: link)
    }

    /// Sends to the latest subscriber, regardless of demand.
    @discardableResult
    func send(_ value: Output) -> Subscribers.Demand {
        link.withLock { LockedBox($0.value) }.value?.send(value) ?? .none
    }

    func send(completion: Subscribers.Completion<Failure>) {
        link.withLock { LockedBox($0.value) }.value?.complete(completion)
    }
}

/// A subscriber for async tests: requests `initialDemand`, records values
/// and the completion, and lets a test `await` a number of values or the
/// completion. Its deinit reports through `onDeinit`.
final class AwaitingSubscriber<Input, Failure: Error>: Subscriber, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is inside the mutex.
    private struct State {
        var values: [Input] = []
        var completion: Subscribers.Completion<Failure>?
        var subscription: (any Subscription)?
        var waiters: [(count: Int?, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(LockedBox(State()))
    private let initialDemand: Subscribers.Demand
    private let onDeinit: (@Sendable () -> Void)?

    init(initialDemand: Subscribers.Demand = .unlimited, onDeinit: (@Sendable () -> Void)? = nil) {
        self.initialDemand = initialDemand
        self.onDeinit = onDeinit
    }

    deinit { onDeinit?() }

    func receive(subscription: any Subscription) {
        state.withLock { $0.value.subscription = subscription }
        if initialDemand != .none { subscription.request(initialDemand) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        wake { $0.values.append(input) }
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        wake {
            $0.completion = completion
            $0.subscription = nil
        }
    }

    private func wake(_ change: (inout State) -> Void) {
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            change(&s.value)
            var ready: [CheckedContinuation<Void, Never>] = []
            s.value.waiters.removeAll { waiter in
                let met = s.value.completion != nil || (waiter.count.map { s.value.values.count >= $0 } ?? false)
                if met { ready.append(waiter.continuation) }
                return met
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Waits until `count` values (or the completion) have arrived.
    func waitForValues(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let met = state.withLock { s -> Bool in
                if s.value.values.count >= count || s.value.completion != nil { return true }
                s.value.waiters.append((count, continuation))
                return false
            }
            if met { continuation.resume() }
        }
    }

    /// Waits until the completion has arrived.
    func waitForCompletion() async {
        await withCheckedContinuation { continuation in
            let met = state.withLock { s -> Bool in
                if s.value.completion != nil { return true }
                s.value.waiters.append((nil, continuation))
                return false
            }
            if met { continuation.resume() }
        }
    }

    func request(_ demand: Subscribers.Demand) {
        state.withLock { LockedBox($0.value.subscription) }.value?.request(demand)
    }

    func cancel() {
        state.withLock { s -> LockedBox<(any Subscription)?> in
            defer { s.value.subscription = nil }
            return LockedBox(s.value.subscription)
        }.value?.cancel()
    }

    var values: [Input] { state.withLock { LockedBox($0.value.values) }.value }
    var completion: Subscribers.Completion<Failure>? { state.withLock { LockedBox($0.value.completion) }.value }
}

/// An asynchronous sequence of `0..<count` that counts how often `next()`
/// was called, to check that a consumer never pulls faster than it asks.
struct CountingSequence: AsyncSequence, Sendable {
    typealias Element = Int
    let count: Int
    let calls = Counter()

    struct AsyncIterator: AsyncIteratorProtocol {
        let count: Int
        let calls: Counter
        var next = 0

        mutating func next() async -> Int? {
            calls.increment()
            guard next < count else { return nil }
            defer { next += 1 }
            return next
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(count: count, calls: calls)
    }

    var nextCalls: Int { calls.count }
}

/// A shareable atomic counter.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    func increment() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}
