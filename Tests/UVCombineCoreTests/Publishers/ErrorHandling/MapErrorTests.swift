import Testing
import UVCombineCore
import UVCombineTesting

@Suite("mapError")
struct MapErrorTests {
    enum Wrapped: Error, Equatable { case wrapped(TestError) }

    @Test func valuesAndFinishPassUnchanged() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, Wrapped>()
        upstream.mapError { Wrapped.wrapped($0) }.subscribe(tracker)
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(TestSubscription)", "value(1)", "finished"])
    }

    @Test func failureIsConverted() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, Wrapped>()
        upstream.mapError { Wrapped.wrapped($0) }.subscribe(tracker)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.completion == .failure(.wrapped(.boom)))
    }

    @Test func demandPassesThrough() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, Wrapped>(initialDemand: .max(1), demandPerValue: { _ in .max(1) })
        upstream.mapError { Wrapped.wrapped($0) }.subscribe(tracker)
        #expect(upstream.subscription?.requested == [.max(1)])
        #expect(upstream.send(7) == .max(1))
        tracker.request(.max(3))
        #expect(upstream.subscription?.requested == [.max(1), .max(3)])
    }

    @Test func oneAtATimeGetsExactlyOnePerRequest() {
        let tracker = TrackingSubscriber<Int, Wrapped>(initialDemand: .max(1))
        Publishers.Sequence<[Int], TestError>(sequence: [1, 2]).mapError { Wrapped.wrapped($0) }.subscribe(tracker)
        #expect(tracker.values == [1])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription([1, 2])", "value(1)", "value(2)", "finished"])
    }

    @Test func cancelReachesUpstream() {
        let upstream = TestPublisher<Int, TestError>()
        let c = upstream.mapError { Wrapped.wrapped($0) }.sink(receiveCompletion: { _ in }, receiveValue: { _ in })
        c.cancel()
        #expect(upstream.subscription?.isCancelled == true)
    }

    @Test func cancelReleasesTheChain() {
        let subject = PassthroughSubject<Int, TestError>()
        weak var weakTracker: TrackingSubscriber<Int, Wrapped>?
        do {
            let tracker = TrackingSubscriber<Int, Wrapped>()
            weakTracker = tracker
            subject.mapError { Wrapped.wrapped($0) }.subscribe(tracker)
            subject.send(1)
            #expect(tracker.values == [1])
            tracker.cancel()
        }
        #expect(weakTracker == nil)
    }

    @Test func initialisersAndJust() {
        let a = Publishers.MapError(upstream: Fail<Int, TestError>(error: .other), { Wrapped.wrapped($0) })
        let b = Publishers.MapError(upstream: Fail<Int, TestError>(error: .other), transform: { Wrapped.wrapped($0) })
        for publisher in [a, b] {
            let tracker = TrackingSubscriber<Int, Wrapped>()
            publisher.subscribe(tracker)
            #expect(tracker.completion == .failure(.wrapped(.other)))
        }
        let typed: Result<Int, Wrapped>.Publisher = Just(4).mapError { _ -> Wrapped in }
        #expect(typed.result == .success(4))
    }
}
