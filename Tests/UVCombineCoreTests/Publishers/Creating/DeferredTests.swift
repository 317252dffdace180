import Synchronization
import Testing
import UVCombineCore
import UVCombineTesting

@Suite("Deferred")
struct DeferredTests {
    @Test func createsAPublisherPerSubscriberAtSubscription() {
        let created = Atomic<Int>(0)
        let deferred = Deferred { () -> Just<Int> in
            Just(created.add(1, ordering: .relaxed).newValue)
        }
        #expect(created.load(ordering: .relaxed) == 0)
        let a = TrackingSubscriber<Int, Never>()
        let b = TrackingSubscriber<Int, Never>()
        deferred.subscribe(a)
        deferred.subscribe(b)
        #expect(a.history == ["subscription(Just)", "value(1)", "finished"])
        #expect(b.values == [2])
    }

    @Test func failureAndDemandPassThrough() {
        let failing = TrackingSubscriber<Int, TestError>()
        Deferred { Fail<Int, TestError>(error: .boom) }.subscribe(failing)
        #expect(failing.completion == .failure(.boom))

        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        Deferred { [1, 2].publisher }.subscribe(tracker)
        #expect(tracker.values == [1])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription([1, 2])", "value(1)", "value(2)", "finished"])
    }

    @Test func cancelReachesTheCreatedPublisher() {
        let upstream = TestPublisher<Int, Never>()
        let c = Deferred { upstream }.sink { _ in }
        c.cancel()
        #expect(upstream.subscription?.isCancelled == true)
    }

    @Test func cancelReleasesTheChain() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakTracker: TrackingSubscriber<Int, Never>?
        do {
            let tracker = TrackingSubscriber<Int, Never>()
            weakTracker = tracker
            Deferred { subject }.subscribe(tracker)
            subject.send(1)
            #expect(tracker.values == [1])
            tracker.cancel()
        }
        #expect(weakTracker == nil)
    }
}
