import Dispatch
import Synchronization
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineTesting

/// Records values from any thread and counts calls that overlap.
private final class PacedRecorder: Subscriber, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is atomic or inside the mutex.
    typealias Input = Int
    typealias Failure = Never
    private let inCall = Atomic<Int>(0)
    let overlaps = Atomic<Int>(0)
    private let state = Mutex(LockedBox((subscription: (any Subscription)?.none, values: [Int]())))

    func receive(subscription: any Subscription) {
        state.withLock { $0.value.subscription = subscription }
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        if inCall.add(1, ordering: .acquiringAndReleasing).newValue != 1 {
            overlaps.add(1, ordering: .relaxed)
        }
        state.withLock { $0.value.values.append(input) }
        inCall.subtract(1, ordering: .acquiringAndReleasing)
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {}

    func request(_ demand: Subscribers.Demand) {
        state.withLock { LockedBox($0.value.subscription) }.value?.request(demand)
    }

    var values: [Int] { state.withLock { LockedBox($0.value.values) }.value }
}

/// Issue 16 §3, §4 for `buffer(size:prefetch:whenFull:)`: Combine's order of
/// prefetch and subscription, zero and re-entrant requests, finite demand,
/// completion rules and what it releases.
@Suite("buffer behaves as Combine")
struct BufferCompatibilityTests {
    typealias Upstream = AggManualUpstream<Int, TestError>

    /// A buffer of `size` over a manual upstream, subscribed, with its
    /// upstream subscription.
    static func make(size: Int = 5, prefetch: Publishers.PrefetchStrategy,
                     whenFull: Publishers.BufferingStrategy<TestError>,
                     initialDemand: Subscribers.Demand? = nil)
        -> (Upstream, AggRecordingSubscription, AggHoldingSubscriber<Int, TestError>)
    {
        let upstream = Upstream()
        let downstream = AggHoldingSubscriber<Int, TestError>(initialDemand: initialDemand)
        upstream.buffer(size: size, prefetch: prefetch, whenFull: whenFull).subscribe(downstream)
        let subscription = AggRecordingSubscription()
        upstream.send(subscription: subscription)
        return (upstream, subscription, downstream)
    }

    static var strategies: [(Publishers.PrefetchStrategy, Publishers.BufferingStrategy<TestError>)] { [
        (.byRequest, .dropNewest), (.byRequest, .dropOldest), (.byRequest, .customError { .other }),
        (.keepFull, .dropNewest), (.keepFull, .dropOldest), (.keepFull, .customError { .other }),
    ] }

    @Test func prefetchIsRequestedBeforeTheDownstreamGetsTheSubscription() {
        for prefetch in [Publishers.PrefetchStrategy.keepFull, .byRequest] {
            let upstream = Upstream()
            let downstream = AggHoldingSubscriber<Int, TestError>()
            upstream.buffer(size: 42, prefetch: prefetch, whenFull: .dropOldest).subscribe(downstream)
            let subscription = AggRecordingSubscription()
            var historyAtRequest: [String]?
            subscription.onRequest = { _ in historyAtRequest = historyAtRequest ?? downstream.history }
            upstream.send(subscription: subscription)
            #expect(historyAtRequest == [])
            #expect(subscription.events == [.requested(prefetch == .keepFull ? .max(42) : .unlimited)])
            #expect(downstream.history == ["subscription(Buffer)"])
        }
    }

    @Test func aSynchronousUpstreamFillsTheBufferBeforeTheDownstreamAsks() {
        var received: [Int] = []
        let c = (1...5).publisher
            .buffer(size: 2, prefetch: .byRequest, whenFull: .dropNewest)
            .sink { received.append($0) }
        #expect(received == [1, 2])
        c.cancel()
    }

    @Test func zeroDemandIsAccepted() {
        for (prefetch, whenFull) in Self.strategies {
            let (upstream, _, downstream) = Self.make(prefetch: prefetch, whenFull: whenFull, initialDemand: Subscribers.Demand.none)
            upstream.send(1)
            downstream.subscription?.request(.none)
            #expect(downstream.history == ["subscription(Buffer)"])
            downstream.subscription?.request(.max(1))
            #expect(downstream.history == ["subscription(Buffer)", "value(1)"])
        }
    }

    @Test func reentrantRequestsOnlyAddDemand() {
        for (prefetch, whenFull) in Self.strategies {
            let (upstream, subscription, downstream) = Self.make(prefetch: prefetch, whenFull: whenFull)
            downstream.onValue = { _ in
                downstream.subscription?.request(.max(1))
                downstream.subscription?.request(.none)
            }
            downstream.subscription?.request(.max(3))
            for i in 0..<10 {
                #expect(upstream.send(i) == (prefetch == .keepFull ? .max(1) : .none))
            }
            #expect(downstream.history == ["subscription(Buffer)"] + (0..<10).map { "value(\($0))" })
            #expect(subscription.events == [.requested(prefetch == .keepFull ? .max(5) : .unlimited)])
        }
    }

    @Test func finiteDemandAfterAnOverfullUpstream() {
        for (prefetch, whenFull) in Self.strategies {
            let (upstream, subscription, downstream) = Self.make(prefetch: prefetch, whenFull: whenFull,
                                                                 initialDemand: Subscribers.Demand.none)
            for i in 0..<10 { #expect(upstream.send(i) == .none) }
            downstream.subscription?.request(.max(3))
            downstream.subscription?.request(.max(1))
            let prefetched: AggUpstreamEvent = .requested(prefetch == .keepFull ? .max(5) : .unlimited)
            switch (whenFull, prefetch) {
            case (.dropNewest, _):
                #expect(downstream.history == ["subscription(Buffer)", "value(0)", "value(1)", "value(2)", "value(3)"])
            case (.dropOldest, _):
                #expect(downstream.history == ["subscription(Buffer)", "value(5)", "value(6)", "value(7)", "value(8)"])
            case (.customError, _):
                #expect(downstream.history == ["subscription(Buffer)", "value(0)", "value(1)", "value(2)",
                                               "failure(other)"])
            }
            switch (whenFull, prefetch) {
            case (.customError, .keepFull):
                // As Combine: the refill goes to the upstream it cancelled.
                #expect(subscription.events == [prefetched, .cancelled, .requested(.max(3))])
            case (.customError, .byRequest):
                #expect(subscription.events == [prefetched, .cancelled])
            case (_, .keepFull):
                #expect(subscription.events == [prefetched, .requested(.max(3)), .requested(.max(1))])
            case (_, .byRequest):
                #expect(subscription.events == [prefetched])
            }
        }
    }

    @Test func unlimitedDemandPassesEverythingStraightThrough() {
        for (prefetch, whenFull) in Self.strategies {
            let (upstream, subscription, downstream) = Self.make(prefetch: prefetch, whenFull: whenFull,
                                                                 initialDemand: .unlimited)
            for i in 0..<10 {
                #expect(upstream.send(i) == (prefetch == .keepFull ? .max(1) : .none))
            }
            #expect(downstream.history == ["subscription(Buffer)"] + (0..<10).map { "value(\($0))" })
            #expect(subscription.events.count == 1)
        }
    }

    @Test func finishedWaitsForDemandAndLaterValuesAreStillBuffered() {
        let (upstream, subscription, downstream) = Self.make(size: 3, prefetch: .byRequest, whenFull: .dropOldest)
        upstream.send(completion: .finished)
        upstream.send(completion: .finished)
        upstream.send(completion: .failure(.boom))
        #expect(downstream.history == ["subscription(Buffer)"])
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .none)
        downstream.subscription?.request(.max(2))
        #expect(downstream.history == ["subscription(Buffer)", "value(1)", "value(2)"])
        downstream.subscription?.request(.max(1))
        #expect(downstream.history == ["subscription(Buffer)", "value(1)", "value(2)", "finished"])
        #expect(subscription.events == [.requested(.unlimited)])
    }

    @Test func aFailureGoesOutWithoutDemandAndLaterEventsAreIgnored() {
        let (upstream, _, downstream) = Self.make(size: 3, prefetch: .byRequest, whenFull: .dropOldest)
        upstream.send(completion: .failure(.boom))
        upstream.send(completion: .finished)
        #expect(upstream.send(1) == .none)
        downstream.subscription?.request(.max(2))
        #expect(downstream.history == ["subscription(Buffer)", "failure(boom)"])
    }

    @Test func aFailureDuringDeliveryComesAfterTheValuesAlreadyDue() {
        let (upstream, _, downstream) = Self.make(prefetch: .byRequest, whenFull: .dropOldest)
        downstream.onValue = { _ in upstream.send(completion: .failure(.boom)) }
        for i in 1...5 { upstream.send(i) }
        downstream.subscription?.request(.max(3))
        // Combine sends the failure from inside the first value, then 2 and
        // 3 after it; we keep the Subscriber contract (nothing after the
        // completion) and deliver what was due first.
        #expect(downstream.history == ["subscription(Buffer)", "value(1)", "value(2)", "value(3)", "failure(boom)"])
    }

    @Test func cancelBeforeTheSubscriptionIsIgnoredAndARequestThenIsDropped() {
        let upstream = Upstream()
        let downstream = AggHoldingSubscriber<Int, TestError>()
        upstream.buffer(size: 2, prefetch: .byRequest, whenFull: .dropNewest).subscribe(downstream)
        upstream.inner?.request(.max(1))
        upstream.inner?.cancel()
        let subscription = AggRecordingSubscription()
        upstream.send(subscription: subscription)
        #expect(subscription.events == [.requested(.unlimited)])
        #expect(downstream.history == ["subscription(Buffer)"])
        upstream.send(1)
        #expect(downstream.history == ["subscription(Buffer)"])
        downstream.subscription?.request(.max(1))
        #expect(downstream.history == ["subscription(Buffer)", "value(1)"])
    }

    @Test func releasesOnCompletionAndCancel() {
        for (prefetch, whenFull) in Self.strategies {
            AggregatingChecks.releases { $0.buffer(size: 1, prefetch: prefetch, whenFull: whenFull) }
        }
        // An overflow failure delivered on request releases too.
        let upstream = Upstream()
        weak var weakDownstream: AggHoldingSubscriber<Int, TestError>?
        var subscription: (any Subscription)?
        do {
            let downstream = AggHoldingSubscriber<Int, TestError>()
            weakDownstream = downstream
            upstream.buffer(size: 1, prefetch: .byRequest, whenFull: .customError { .other }).subscribe(downstream)
            upstream.send(subscription: AggRecordingSubscription())
            upstream.send(1)
            upstream.send(2)
            subscription = downstream.subscription
        }
        #expect(weakDownstream != nil)
        subscription?.request(.max(1))
        #expect(weakDownstream == nil)
    }

    @Test func requestsFromAnotherThreadWhileValuesArrive() {
        let count = 20_000
        for prefetch in [Publishers.PrefetchStrategy.byRequest, .keepFull] {
            let subject = PassthroughSubject<Int, Never>()
            let recorder = PacedRecorder()
            subject.buffer(size: count, prefetch: prefetch, whenFull: .dropNewest).subscribe(recorder)
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                for i in 0..<count {
                    if thread == 0 { subject.send(i) } else { recorder.request(.max(1)) }
                }
            }
            // Exactly what was requested, in order, one call at a time.
            #expect(recorder.values == Array(0..<count))
            #expect(recorder.overlaps.load(ordering: .relaxed) == 0)
        }
    }
}
