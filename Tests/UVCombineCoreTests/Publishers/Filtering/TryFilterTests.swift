import Testing
import UVCombineCore
import UVCombineTesting

@Suite("tryFilter")
struct TryFilterTests {
    @Test func republishesMatchingValuesAndFinishes() {
        let tracker = TrackingSubscriber<Int, any Error>()
        [1, 2, 3, 4].publisher.tryFilter { $0 % 2 == 0 }.subscribe(tracker)
        #expect(tracker.history == ["subscription(TryFilter)", "value(2)", "value(4)", "finished"])
    }

    @Test func forwardsUpstreamFailure() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, any Error>()
        upstream.tryFilter { _ in true }.subscribe(tracker)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(TryFilter)", "failure(boom)"])
    }

    @Test func thrownErrorCancelsUpstreamAndNothingFollows() {
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, any Error>()
        upstream.tryFilter { v in
            if v == 0 { throw TestError.other }
            return true
        }.subscribe(tracker)
        upstream.send(1)
        upstream.send(0)
        #expect(upstream.subscription?.isCancelled == true)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(TryFilter)", "value(1)", "failure(other)"])
    }

    @Test func rejectedElementsAreCompensatedUpstream() {
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, any Error>(initialDemand: .max(1))
        upstream.tryFilter { $0 > 10 }.subscribe(tracker)
        #expect(upstream.send(1) == .max(1))
        #expect(upstream.send(11) == .none)
        #expect(tracker.values == [11])
    }

    @Test func oneAtATimeGetsExactlyOnePerRequest() {
        let tracker = TrackingSubscriber<Int, any Error>(initialDemand: .max(1))
        (1...9).publisher.tryFilter { $0 % 3 == 0 }.subscribe(tracker)
        #expect(tracker.values == [3])
        tracker.request(.max(1))
        #expect(tracker.values == [3, 6])
        #expect(tracker.completion == nil)
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(TryFilter)", "value(3)", "value(6)", "value(9)", "finished"])
    }

    @Test func cancelReachesUpstream() {
        let upstream = TestPublisher<Int, Never>()
        let c = upstream.tryFilter { _ in true }.sink(receiveCompletion: { _ in }, receiveValue: { _ in })
        #expect(upstream.subscription?.requested == [.unlimited])
        c.cancel()
        #expect(upstream.subscription?.isCancelled == true)
    }

    @Test func cancelReleasesTheChain() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakTracker: TrackingSubscriber<Int, any Error>?
        do {
            let tracker = TrackingSubscriber<Int, any Error>()
            weakTracker = tracker
            subject.tryFilter { _ in true }.subscribe(tracker)
            subject.send(1)
            #expect(tracker.values == [1])
            tracker.cancel()
        }
        #expect(weakTracker == nil)
    }

    @Test func fusions() {
        let tryThenFilter: Publishers.TryFilter<Publishers.Sequence<ClosedRange<Int>, Never>> =
            (1...10).publisher.tryFilter { $0 % 2 == 0 }.filter { $0 > 4 }
        let tryThenTry: Publishers.TryFilter<Publishers.Sequence<ClosedRange<Int>, Never>> =
            (1...10).publisher.tryFilter { $0 % 2 == 0 }.tryFilter { v in
                if v == 8 { throw TestError.boom }
                return v > 4
            }
        let filterThenTry: Publishers.TryFilter<Publishers.Sequence<ClosedRange<Int>, Never>> =
            (1...10).publisher.filter { $0 % 5 == 0 }.tryFilter { $0 > 5 }
        let a = TrackingSubscriber<Int, any Error>()
        tryThenFilter.subscribe(a)
        #expect(a.values == [6, 8, 10])
        let b = TrackingSubscriber<Int, any Error>()
        tryThenTry.subscribe(b)
        #expect(b.history == ["subscription(TryFilter)", "value(6)", "failure(boom)"])
        let c = TrackingSubscriber<Int, any Error>()
        filterThenTry.subscribe(c)
        #expect(c.values == [10])
    }
}
