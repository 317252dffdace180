import Testing
import UVCombineCore
import UVCombineTesting

@Suite("replaceError")
struct ReplaceErrorTests {
    @Test func valuesAndFinishPassUnchanged() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.replaceError(with: -1).subscribe(tracker)
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(ReplaceError)", "value(1)", "finished"])
    }

    @Test func failureBecomesTheValueThenFinished() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.replaceError(with: -1).subscribe(tracker)
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(ReplaceError)", "value(1)", "value(-1)", "finished"])
    }

    @Test func withoutDemandTheReplacementWaitsForTheNextRequest() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        upstream.replaceError(with: -1).subscribe(tracker)
        upstream.send(1) // uses up the only demand
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(ReplaceError)", "value(1)"])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(ReplaceError)", "value(1)", "value(-1)", "finished"])
        // The owed request is not forwarded to the failed upstream.
        #expect(upstream.subscription?.requested == [.max(1)])
        tracker.request(.max(1))
        #expect(tracker.completionCount == 1)
    }

    @Test func failureBeforeAnyDemand() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        Fail<Int, TestError>(error: .boom).replaceError(with: 0).subscribe(tracker)
        #expect(tracker.history == ["subscription(ReplaceError)"])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(ReplaceError)", "value(0)", "finished"])
    }

    @Test func demandAccountingCountsReturnedDemand() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: { _ in .max(1) })
        upstream.replaceError(with: 9).subscribe(tracker)
        #expect(upstream.send(1) == .max(1)) // demand: 1 - 1 + 1 = 1
        upstream.send(completion: .failure(.boom))
        #expect(tracker.values == [1, 9])
        #expect(tracker.completion == .finished)
    }

    @Test func oneAtATimeGetsExactlyOnePerRequest() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        Publishers.Sequence<[Int], TestError>(sequence: [1, 2]).replaceError(with: 0).subscribe(tracker)
        #expect(tracker.values == [1])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(ReplaceError)", "value(1)", "value(2)", "finished"])
    }

    @Test func cancelReachesUpstreamAndDropsTheOwedReplacement() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = ManualSubscriber<Int, Never>()
        upstream.replaceError(with: 0).subscribe(subscriber)
        subscriber.subscription?.request(.max(1))
        subscriber.subscription?.cancel()
        #expect(upstream.subscription?.cancelCount == 1)
        upstream.send(completion: .failure(.boom))
        subscriber.subscription?.request(.max(1))
        #expect(subscriber.values == [])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func cancelWhileTheReplacementIsOwed() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = ManualSubscriber<Int, Never>()
        upstream.replaceError(with: 0).subscribe(subscriber)
        upstream.send(completion: .failure(.boom))
        subscriber.subscription?.cancel()
        subscriber.subscription?.request(.max(1))
        #expect(subscriber.values == [])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func cancelReleasesTheChain() {
        let subject = PassthroughSubject<Int, TestError>()
        weak var weakTracker: TrackingSubscriber<Int, Never>?
        do {
            let tracker = TrackingSubscriber<Int, Never>()
            weakTracker = tracker
            subject.replaceError(with: 0).subscribe(tracker)
            subject.send(1)
            #expect(tracker.values == [1])
            tracker.cancel()
        }
        #expect(weakTracker == nil)
    }

    @Test func equatableAndJust() {
        #expect(Just(1).replaceError(with: 0) == Just(1))
        let a = Publishers.ReplaceError(upstream: Fail<Int, TestError>(error: .boom), output: 1)
        #expect(a.output == 1)
        #expect(Publishers.ReplaceError(upstream: Empty<Int, TestError>(), output: 1)
            == Publishers.ReplaceError(upstream: Empty<Int, TestError>(), output: 1))
    }
}
