import Synchronization
import Testing
import UVCombineCore
import UVCombineTesting

// Test doubles for the aggregating operators' Combine-compatibility tests:
// an upstream that hands out its subscription (and events) only when the
// test says so, a subscription that records what it is asked, and a
// subscriber that keeps its subscription strongly (as most subscribers do),
// so a test can see whether the operator lets go of it.

/// What an upstream subscription was asked.
enum AggUpstreamEvent: Equatable, CustomStringConvertible {
    case requested(Subscribers.Demand)
    case cancelled

    var description: String {
        switch self {
        case .requested(let demand): return "requested(\(demand))"
        case .cancelled: return "cancelled"
        }
    }
}

/// A subscription that records every request and cancel.
final class AggRecordingSubscription: Subscription, CustomStringConvertible, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is inside the mutex.
    private let recorded = Mutex(LockedBox([AggUpstreamEvent]()))
    /// Called after each request is recorded (re-entrancy probes).
    var onRequest: ((Subscribers.Demand) -> Void)?

    func request(_ demand: Subscribers.Demand) {
        recorded.withLock { $0.value.append(.requested(demand)) }
        onRequest?(demand)
    }

    func cancel() {
        recorded.withLock { $0.value.append(.cancelled) }
    }

    var events: [AggUpstreamEvent] { recorded.withLock { LockedBox($0.value) }.value }
    var description: String { "AggRecordingSubscription" }
}

/// An upstream under the test's control: it keeps the operator's subscriber
/// and sends it a subscription, values and completions only when asked, so
/// events can come before the subscription, after completion or twice.
final class AggManualUpstream<Output, Failure: Error>: Publisher, @unchecked Sendable {
    // @unchecked Sendable: used from one thread in these tests.
    private(set) var subscriber: AnySubscriber<Output, Failure>?
    /// The operator's subscriber object itself (its inner subscription).
    private(set) var raw: Any?

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        self.subscriber = AnySubscriber(subscriber)
        raw = subscriber
    }

    /// The operator's inner object seen as the downstream's subscription.
    var inner: (any Subscription)? { raw as? any Subscription }

    func send(subscription: any Subscription) { subscriber?.receive(subscription: subscription) }
    @discardableResult
    func send(_ value: Output) -> Subscribers.Demand { subscriber?.receive(value) ?? .none }
    func send(completion: Subscribers.Completion<Failure>) { subscriber?.receive(completion: completion) }

    /// Forgets the subscriber (as an upstream does after completion).
    func drop() {
        subscriber = nil
        raw = nil
    }
}

/// A subscriber that keeps the subscription it gets, requests
/// `initialDemand` (unless `nil`) and returns `demandPerValue` per value,
/// recording what happens as strings.
final class AggHoldingSubscriber<Input, Failure: Error>: Subscriber, @unchecked Sendable {
    // @unchecked Sendable: used from one thread in these tests.
    private(set) var subscription: (any Subscription)?
    private(set) var history: [String] = []
    let initialDemand: Subscribers.Demand?
    let demandPerValue: Subscribers.Demand
    var onValue: ((Input) -> Void)?
    var onSubscription: ((any Subscription) -> Void)?
    var onDeinit: (() -> Void)?

    init(initialDemand: Subscribers.Demand? = nil, demandPerValue: Subscribers.Demand = .none) {
        self.initialDemand = initialDemand
        self.demandPerValue = demandPerValue
    }

    deinit { onDeinit?() }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        history.append("subscription(\(subscription))")
        onSubscription?(subscription)
        if let initialDemand { subscription.request(initialDemand) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        history.append("value(\(input))")
        onValue?(input)
        return demandPerValue
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished: history.append("finished")
        case .failure(let error): history.append("failure(\(error))")
        }
    }
}

/// How a lifecycle check ends the subscription.
enum AggLifecycleEnd: CaseIterable { case cancel, finish, fail }

/// Checks shared by every aggregating operator, applied to an upstream of
/// `Int`s failing with `TestError`.
enum AggregatingChecks {
    typealias Upstream = AggManualUpstream<Int, TestError>

    /// §3: on cancel, on finish and on failure the operator's subscription
    /// lets go of its downstream (which still holds the subscription) and
    /// of the upstream subscription.
    static func releases<P: Publisher>(
        sourceLocation: SourceLocation = #_sourceLocation,
        _ make: (Upstream) -> P
    ) {
        for end in AggLifecycleEnd.allCases {
            let upstream = Upstream()
            weak var weakDownstream: AggHoldingSubscriber<P.Output, P.Failure>?
            weak var weakUpstreamSubscription: AggRecordingSubscription?
            do {
                let downstream = AggHoldingSubscriber<P.Output, P.Failure>(initialDemand: .unlimited)
                weakDownstream = downstream
                make(upstream).subscribe(downstream)
                let subscription = AggRecordingSubscription()
                weakUpstreamSubscription = subscription
                upstream.send(subscription: subscription)
                upstream.send(1)
                switch end {
                case .cancel: downstream.subscription?.cancel()
                case .finish: upstream.send(completion: .finished)
                case .fail: upstream.send(completion: .failure(.boom))
                }
                if end != .cancel {
                    let last = downstream.history.last ?? ""
                    #expect(last == "finished" || last.hasPrefix("failure"), "\(end): no completion",
                            sourceLocation: sourceLocation)
                }
            }
            // The upstream still holds the operator's subscriber.
            #expect(upstream.raw != nil, sourceLocation: sourceLocation)
            #expect(weakDownstream == nil, "\(end): downstream kept", sourceLocation: sourceLocation)
            #expect(weakUpstreamSubscription == nil, "\(end): upstream subscription kept",
                    sourceLocation: sourceLocation)
        }
    }

    /// §4: a cancel that comes before the upstream's subscription; then the
    /// subscription arrives. Returns what the upstream subscription saw.
    static func cancelBeforeSubscription<P: Publisher>(_ make: (Upstream) -> P) -> [AggUpstreamEvent] {
        let upstream = Upstream()
        let downstream = AggHoldingSubscriber<P.Output, P.Failure>()
        make(upstream).subscribe(downstream)
        upstream.inner?.cancel()
        let subscription = AggRecordingSubscription()
        upstream.send(subscription: subscription)
        return subscription.events
    }

    /// §4: a value and a completion before the subscription. Returns the
    /// downstream's history and the demand returned for the value.
    static func eventsBeforeSubscription<P: Publisher>(
        _ make: (Upstream) -> P
    ) -> (demand: Subscribers.Demand, history: [String]) {
        let upstream = Upstream()
        let downstream = AggHoldingSubscriber<P.Output, P.Failure>(initialDemand: .unlimited)
        make(upstream).subscribe(downstream)
        let demand = upstream.send(7)
        upstream.send(completion: .finished)
        return (demand, downstream.history)
    }

    /// §4: a request before the subscription does not trap, and a second
    /// subscription is cancelled while the first stays (a downstream
    /// cancel then reaches the first only).
    static func requestBeforeSubscriptionAndSecondSubscription<P: Publisher>(
        sourceLocation: SourceLocation = #_sourceLocation,
        _ make: (Upstream) -> P
    ) {
        let upstream = Upstream()
        let downstream = AggHoldingSubscriber<P.Output, P.Failure>()
        make(upstream).subscribe(downstream)
        upstream.inner?.request(.max(1))
        let first = AggRecordingSubscription()
        let second = AggRecordingSubscription()
        upstream.send(subscription: first)
        let firstBefore = first.events
        upstream.send(subscription: second)
        #expect(second.events == [.cancelled], sourceLocation: sourceLocation)
        #expect(first.events == firstBefore, sourceLocation: sourceLocation)
        #expect(downstream.history.count == 1, sourceLocation: sourceLocation)
        downstream.subscription?.cancel()
        #expect(first.events.last == .cancelled, sourceLocation: sourceLocation)
        #expect(second.events == [.cancelled], sourceLocation: sourceLocation)
    }

    /// §6: what the operator's subscription says about itself, before and
    /// after it has its upstream subscription.
    static func reflection<P: Publisher>(
        _ name: String,
        labels: [String],
        sourceLocation: SourceLocation = #_sourceLocation,
        _ make: (Upstream) -> P
    ) {
        let upstream = Upstream()
        let downstream = AggHoldingSubscriber<P.Output, P.Failure>()
        make(upstream).subscribe(downstream)
        for stage in 0..<2 {
            if stage == 1 { upstream.send(subscription: AggRecordingSubscription()) }
            // Unwrapped: an Optional is itself CustomReflectable.
            let wrapped: Any? = stage == 0 ? upstream.raw : downstream.subscription.map { $0 as Any }
            guard let object = wrapped else {
                Issue.record("no subscription", sourceLocation: sourceLocation)
                return
            }
            #expect((object as? CustomStringConvertible)?.description == name, sourceLocation: sourceLocation)
            #expect((object as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == name,
                    sourceLocation: sourceLocation)
            #expect(!(object is CustomDebugStringConvertible), sourceLocation: sourceLocation)
            let mirror = (object as? CustomReflectable)?.customMirror
            #expect(mirror?.children.map { $0.label ?? "" } == labels, sourceLocation: sourceLocation)
        }
        #expect(downstream.history == ["subscription(\(name))"], sourceLocation: sourceLocation)
    }

    /// The value of one mirror child, printed.
    static func child(_ label: String, of object: Any?) -> String? {
        guard let object, let mirror = (object as? CustomReflectable)?.customMirror else { return nil }
        return mirror.children.first { $0.label == label }.map { String(describing: $0.value) }
    }
}
