import Testing
import UVCombineCore
import UVCombineTesting

@Suite("setFailureType")
struct SetFailureTypeTests {
    @Test func valuesAndFinishPassThrough() {
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, TestError>()
        let typed: Publishers.SetFailureType<TestPublisher<Int, Never>, TestError> =
            upstream.setFailureType(to: TestError.self)
        typed.subscribe(tracker)
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(TestSubscription)", "value(1)", "finished"])
    }

    @Test func demandPassesThroughOneAtATime() {
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .max(1))
        [1, 2].publisher.setFailureType(to: TestError.self).subscribe(tracker)
        #expect(tracker.values == [1])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription([1, 2])", "value(1)", "value(2)", "finished"])
    }

    @Test func cancelReachesUpstream() {
        let upstream = TestPublisher<Int, Never>()
        let c = upstream.setFailureType(to: TestError.self).sink(receiveCompletion: { _ in }, receiveValue: { _ in })
        c.cancel()
        #expect(upstream.subscription?.isCancelled == true)
    }

    @Test func cancelReleasesTheChain() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakTracker: TrackingSubscriber<Int, TestError>?
        do {
            let tracker = TrackingSubscriber<Int, TestError>()
            weakTracker = tracker
            subject.setFailureType(to: TestError.self).subscribe(tracker)
            subject.send(1)
            #expect(tracker.values == [1])
            tracker.cancel()
        }
        #expect(weakTracker == nil)
    }

    @Test func fusionAndEquality() {
        let upstream = [1].publisher
        let twice: Publishers.SetFailureType<Publishers.Sequence<[Int], Never>, any Error> =
            upstream.setFailureType(to: TestError.self).setFailureType(to: (any Error).self)
        let tracker = TrackingSubscriber<Int, any Error>()
        twice.subscribe(tracker)
        #expect(tracker.values == [1])
        #expect(upstream.setFailureType(to: TestError.self) == upstream.setFailureType(to: TestError.self))
    }
}
