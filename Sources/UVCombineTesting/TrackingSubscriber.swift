import Synchronization
import UVCombineCore

/// A subscriber that records everything it receives, for tests.
///
/// It requests `initialDemand` on subscription (nothing when `.none`) and
/// returns `demandPerValue` from every `receive(_:)`. `request` and `cancel`
/// act on the stored subscription, so a test can drive demand by hand.
/// Threading: every method may be called from any thread.
///
/// ```swift
/// let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
/// [1, 2, 3].publisher.subscribe(tracker)
/// #expect(tracker.values == [1])
/// tracker.request(.max(2))
/// #expect(tracker.values == [1, 2, 3])
/// #expect(tracker.completion == .finished)
/// ```
public final class TrackingSubscriber<Input, Failure: Error>: Subscriber, Cancellable,
    CustomStringConvertible, @unchecked Sendable
{
    // @unchecked Sendable: all mutable state is inside the mutex.

    /// One recorded event.
    ///
    /// ```swift
    /// let tracker = TrackingSubscriber<Int, Never>()
    /// Just(1).subscribe(tracker)
    /// #expect(tracker.history == ["subscription(Just)", "value(1)", "finished"])
    /// ```
    public enum Event: CustomStringConvertible {
        /// A subscription arrived; its description is recorded.
        case subscription(String)
        /// A value arrived.
        case value(Input)
        /// The completion arrived.
        case completion(Subscribers.Completion<Failure>)

        /// `subscription(Name)`, `value(v)` or `completion(c)`.
        public var description: String {
            switch self {
            case .subscription(let name): return "subscription(\(name))"
            case .value(let value): return "value(\(value))"
            case .completion(.finished): return "finished"
            case .completion(.failure(let error)): return "failure(\(error))"
            }
        }
    }

    private struct State {
        var events: [Event] = []
        var subscriptions: [any Subscription] = []
    }

    private let state = Mutex(UncheckedBox(State()))
    private let initialDemand: Subscribers.Demand
    private let demandPerValue: @Sendable (Input) -> Subscribers.Demand
    private let onValue: (@Sendable (Input) -> Void)?

    /// Creates a tracker.
    ///
    /// - Parameters:
    ///   - initialDemand: requested on subscription; `.none` requests nothing.
    ///   - demandPerValue: what `receive(_:)` returns for each value.
    ///   - onValue: called for each value after it is recorded.
    public init(initialDemand: Subscribers.Demand = .unlimited,
                demandPerValue: @escaping @Sendable (Input) -> Subscribers.Demand = { _ in .none },
                onValue: (@Sendable (Input) -> Void)? = nil) {
        self.initialDemand = initialDemand
        self.demandPerValue = demandPerValue
        self.onValue = onValue
    }

    /// Records the subscription and requests the initial demand.
    public func receive(subscription: any Subscription) {
        state.withLock {
            $0.value.events.append(.subscription(String(describing: subscription)))
            $0.value.subscriptions.append(subscription)
        }
        if initialDemand != .none { subscription.request(initialDemand) }
    }

    /// Records the value and returns `demandPerValue(value)`.
    public func receive(_ input: Input) -> Subscribers.Demand {
        state.withLock { $0.value.events.append(.value(input)) }
        onValue?(input)
        return demandPerValue(input)
    }

    /// Records the completion and releases the subscription.
    public func receive(completion: Subscribers.Completion<Failure>) {
        state.withLock {
            $0.value.events.append(.completion(completion))
            $0.value.subscriptions.removeAll()
        }
    }

    /// Requests more from the latest subscription.
    public func request(_ demand: Subscribers.Demand) {
        state.withLock { UncheckedBox($0.value.subscriptions.last) }.value?.request(demand)
    }

    /// Cancels the latest subscription and releases it (as a subscriber
    /// should, so no retain cycle through the subscription remains).
    public func cancel() {
        state.withLock { s -> UncheckedBox<(any Subscription)?> in
            let last = s.value.subscriptions.popLast()
            return UncheckedBox(last)
        }.value?.cancel()
    }

    /// Every event in order.
    public var events: [Event] { state.withLock { UncheckedBox($0.value.events) }.value }

    /// The values received, in order.
    public var values: [Input] {
        events.compactMap { if case .value(let v) = $0 { return v } else { return nil } }
    }

    /// The completion, if one arrived.
    public var completion: Subscribers.Completion<Failure>? {
        for event in events { if case .completion(let c) = event { return c } }
        return nil
    }

    /// How many completions arrived (a correct publisher sends at most one).
    public var completionCount: Int {
        events.filter { if case .completion = $0 { return true } else { return false } }.count
    }

    /// The descriptions of the subscriptions received.
    public var subscriptionNames: [String] {
        events.compactMap { if case .subscription(let s) = $0 { return s } else { return nil } }
    }

    /// The events as strings, for compact assertions:
    /// `["subscription(Map)", "value(1)", "finished"]`.
    public var history: [String] { events.map(\.description) }

    /// `TrackingSubscriber`.
    public var description: String { "TrackingSubscriber" }
}

/// Carries a non-`Sendable` value into a `Mutex` in test support; every use
/// is read or written only under the lock.
@usableFromInline
internal struct UncheckedBox<Value>: @unchecked Sendable {
    @usableFromInline var value: Value
    @usableFromInline init(_ value: Value) { self.value = value }
}
