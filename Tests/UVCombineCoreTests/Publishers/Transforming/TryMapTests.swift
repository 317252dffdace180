import Testing
import UVCombineCore
import UVCombineTesting

@Suite("tryMap")
struct TryMapTests {
    @Test func transformsValuesAndFinishes() {
        let tracker = TrackingSubscriber<Int, any Error>()
        [1, 2, 3].publisher.tryMap { $0 * 10 }.subscribe(tracker)
        #expect(tracker.history == ["subscription(TryMap)", "value(10)", "value(20)", "value(30)", "finished"])
    }

    @Test func forwardsUpstreamFailureAsAnyError() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, any Error>()
        upstream.tryMap { $0 }.subscribe(tracker)
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(TryMap)", "value(1)", "failure(boom)"])
        #expect((tracker.completion.flatMap { if case .failure(let e) = $0 { e } else { nil } }) as? TestError == .boom)
    }

    @Test func thrownErrorCancelsUpstreamAndFailsDownstreamOnce() {
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, any Error>()
        upstream.tryMap { v -> Int in
            if v == 2 { throw TestError.other }
            return v
        }.subscribe(tracker)
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .none)
        #expect(upstream.subscription?.isCancelled == true)
        #expect(upstream.subscription?.cancelCount == 1)
        upstream.send(3)
        upstream.send(completion: .finished)
        // As Combine's tryMap: a value the upstream still sends is
        // forwarded; a completion is not.
        #expect(tracker.history == ["subscription(TryMap)", "value(1)", "failure(other)", "value(3)"])
        #expect(tracker.completionCount == 1)
    }

    @Test func oneAtATimeGetsExactlyOnePerRequest() {
        let tracker = TrackingSubscriber<Int, any Error>(initialDemand: .max(1))
        [1, 2, 3].publisher.tryMap { $0 + 100 }.subscribe(tracker)
        #expect(tracker.values == [101])
        tracker.request(.max(1))
        #expect(tracker.values == [101, 102])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(TryMap)", "value(101)", "value(102)", "value(103)", "finished"])
    }

    @Test func demandFromReceiveIsPassedBack() {
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, any Error>(initialDemand: .max(1), demandPerValue: { _ in .max(2) })
        upstream.tryMap { $0 }.subscribe(tracker)
        #expect(upstream.subscription?.requested == [.max(1)])
        #expect(upstream.send(1) == .max(2))
    }

    @Test func cancelReachesUpstreamOnceAndStopsRequests() {
        // Values sent after the cancel are still forwarded, as Combine's
        // tryMap does.
        let upstream = TestPublisher<Int, Never>()
        let subscriber = ManualSubscriber<Int, any Error>()
        upstream.tryMap { $0 }.subscribe(subscriber)
        #expect(subscriber.subscription.map { "\($0)" } == "TryMap")
        subscriber.subscription?.request(.max(1))
        subscriber.subscription?.cancel()
        subscriber.subscription?.cancel()
        subscriber.subscription?.request(.max(1))
        #expect(upstream.subscription?.cancelCount == 1)
        #expect(upstream.subscription?.requested == [.max(1)])
        upstream.send(5)
        #expect(subscriber.values == [5])
    }

    @Test func secondSubscriptionIsCancelled() {
        let twice = SubscribesTwice<Int>()
        let tracker = TrackingSubscriber<Int, any Error>()
        twice.tryMap { $0 }.subscribe(tracker)
        #expect(twice.extra.isCancelled)
        #expect(twice.first.subscription?.isCancelled == false)
        #expect(tracker.subscriptionNames == ["TryMap"])
    }

    @Test func cancelReleasesTheChain() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakTracker: TrackingSubscriber<Int, any Error>?
        do {
            let tracker = TrackingSubscriber<Int, any Error>()
            weakTracker = tracker
            subject.tryMap { $0 * 2 }.subscribe(tracker)
            subject.send(1)
            #expect(tracker.values == [2])
            tracker.cancel()
        }
        #expect(weakTracker == nil)
    }

    @Test func failureReleasesTheChain() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakTracker: TrackingSubscriber<Int, any Error>?
        do {
            let tracker = TrackingSubscriber<Int, any Error>()
            weakTracker = tracker
            subject.tryMap { _ -> Int in throw TestError.boom }.subscribe(tracker)
            subject.send(1)
            #expect(tracker.completion != nil)
        }
        #expect(weakTracker == nil)
    }

    @Test func fusions() {
        let mapThenTry: Publishers.TryMap<Publishers.Sequence<[Int], Never>, String> =
            [1, 2].publisher.map { $0 * 2 }.tryMap { "\($0)" }
        let tryThenMap: Publishers.TryMap<Publishers.Sequence<[Int], Never>, Int> =
            [1, 2].publisher.tryMap { $0 + 1 }.map { $0 * 10 }
        let tryThenTry: Publishers.TryMap<Publishers.Sequence<[Int], Never>, Int> =
            [1, 2].publisher.tryMap { $0 + 1 }.tryMap { v -> Int in
                if v == 3 { throw TestError.boom }
                return v
            }
        let a = TrackingSubscriber<String, any Error>()
        mapThenTry.subscribe(a)
        #expect(a.values == ["2", "4"])
        let b = TrackingSubscriber<Int, any Error>()
        tryThenMap.subscribe(b)
        #expect(b.values == [20, 30])
        let c = TrackingSubscriber<Int, any Error>()
        tryThenTry.subscribe(c)
        #expect(c.history == ["subscription(TryMap)", "value(2)", "failure(boom)"])
    }

    @Test func justTryMapIsAppliedAtOnce() {
        let ok = TrackingSubscriber<Int, any Error>()
        Just(2).tryMap { $0 * 3 }.subscribe(ok)
        #expect(ok.history == ["subscription(Once)", "value(6)", "finished"])
        let bad = TrackingSubscriber<Int, any Error>()
        Just(2).tryMap { _ -> Int in throw TestError.boom }.subscribe(bad)
        #expect(bad.history == ["subscription(Empty)", "failure(boom)"])
    }
}
