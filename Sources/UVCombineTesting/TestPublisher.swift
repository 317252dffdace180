import Synchronization
import UVCombineCore

/// A publisher under the test's control: it records the demand each
/// subscriber requests and whether it cancelled, and lets the test send
/// values and completion directly (ignoring demand, to probe how operators
/// handle a misbehaving upstream).
///
/// Threading: every method may be called from any thread.
///
/// ```swift
/// let upstream = TestPublisher<Int, Never>()
/// let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(2))
/// upstream.map { $0 * 2 }.subscribe(tracker)
/// #expect(upstream.subscription?.requested == [.max(2)])
/// upstream.send(1)
/// #expect(tracker.values == [2])
/// ```
public final class TestPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is inside the mutex.

    /// The subscription handed to one subscriber.
    ///
    /// ```swift
    /// let upstream = TestPublisher<Int, Never>()
    /// let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(2))
    /// upstream.subscribe(tracker)
    /// #expect(upstream.subscription?.requested == [.max(2)])
    /// tracker.cancel()
    /// #expect(upstream.subscription?.isCancelled == true)
    /// ```
    public final class TestSubscription: Subscription, CustomStringConvertible, @unchecked Sendable {
        private struct State {
            var requested: [Subscribers.Demand] = []
            var cancelCount = 0
        }
        private let state = Mutex(State())
        fileprivate let send: (Output) -> Subscribers.Demand
        fileprivate let complete: (Subscribers.Completion<Failure>) -> Void

        fileprivate init(send: @escaping (Output) -> Subscribers.Demand,
                         complete: @escaping (Subscribers.Completion<Failure>) -> Void) {
            self.send = send
            self.complete = complete
        }

        /// Records the demand.
        public func request(_ demand: Subscribers.Demand) {
            state.withLock { $0.requested.append(demand) }
        }

        /// Records the cancellation.
        public func cancel() {
            state.withLock { $0.cancelCount += 1 }
        }

        /// Every demand requested, in order.
        public var requested: [Subscribers.Demand] { state.withLock { $0.requested } }
        /// The sum of every demand requested.
        public var totalDemand: Subscribers.Demand { requested.reduce(.none, +) }
        /// Whether `cancel()` was called.
        public var isCancelled: Bool { state.withLock { $0.cancelCount > 0 } }
        /// How many times `cancel()` was called.
        public var cancelCount: Int { state.withLock { $0.cancelCount } }
        /// `TestSubscription`.
        public var description: String { "TestSubscription" }
    }

    private let subscriptions = Mutex(UncheckedBox([TestSubscription]()))

    /// Creates a publisher with no subscribers.
    public init() {}

    /// Attaches the subscriber with a fresh ``TestSubscription``.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let subscription = TestSubscription(send: { subscriber.receive($0) },
                                            complete: { subscriber.receive(completion: $0) })
        subscriptions.withLock { $0.value.append(subscription) }
        subscriber.receive(subscription: subscription)
    }

    /// Every subscription handed out, in order.
    public var allSubscriptions: [TestSubscription] { subscriptions.withLock { $0.value } }

    /// The latest subscription.
    public var subscription: TestSubscription? { allSubscriptions.last }

    /// Sends `value` to the latest subscriber, regardless of demand, and
    /// returns the demand it answered with.
    @discardableResult
    public func send(_ value: Output) -> Subscribers.Demand {
        guard let subscription else { return .none }
        return subscription.send(value)
    }

    /// Sends the completion to the latest subscriber.
    public func send(completion: Subscribers.Completion<Failure>) {
        subscription?.complete(completion)
    }
}
