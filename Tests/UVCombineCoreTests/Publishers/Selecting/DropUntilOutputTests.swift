import Testing
import UVCombineCore
import UVCombineTesting

@Suite("drop(untilOutputFrom:)")
struct DropUntilOutputTests {
    @Test func dropsUntilTheOtherEmitsThenRepublishes() {
        let upstream = TestPublisher<Int, TestError>()
        let trigger = TestPublisher<String, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.drop(untilOutputFrom: trigger).subscribe(tracker)
        #expect(trigger.subscription?.requested == [.max(1)])
        #expect(upstream.subscription?.requested == [.unlimited])
        upstream.send(1)
        #expect(trigger.send("go") == .none)
        // The trigger's job is done: it is cancelled.
        #expect(trigger.subscription?.cancelCount == 1)
        upstream.send(2)
        upstream.send(3)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(DropUntilOutput)", "value(2)", "value(3)", "finished"])
        #expect(upstream.subscription?.isCancelled == false)
    }

    @Test func droppedElementsConsumeDemand() {
        let upstream = TestPublisher<Int, Never>()
        let trigger = PassthroughSubject<Void, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(3))
        upstream.drop(untilOutputFrom: trigger).subscribe(tracker)
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .none)
        trigger.send()
        #expect(upstream.send(3) == .none)
        #expect(tracker.values == [3])
        #expect(upstream.subscription?.requested == [.max(3)])
    }

    @Test func theOtherCompletingFirstEndsTheStream() {
        let upstream = TestPublisher<Int, TestError>()
        let trigger = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.drop(untilOutputFrom: trigger).subscribe(tracker)
        upstream.send(1)
        trigger.send(completion: .failure(.other))
        #expect(upstream.subscription?.cancelCount == 1)
        upstream.send(2)
        #expect(tracker.history == ["subscription(DropUntilOutput)", "failure(other)"])

        let upstream2 = TestPublisher<Int, TestError>()
        let trigger2 = TestPublisher<Int, TestError>()
        let finished = TrackingSubscriber<Int, TestError>()
        upstream2.drop(untilOutputFrom: trigger2).subscribe(finished)
        trigger2.send(completion: .finished)
        #expect(finished.history == ["subscription(DropUntilOutput)", "finished"])
        #expect(upstream2.subscription?.isCancelled == true)
    }

    @Test func theOthersCompletionAfterItFiredIsIgnored() {
        let upstream = TestPublisher<Int, TestError>()
        let trigger = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.drop(untilOutputFrom: trigger).subscribe(tracker)
        trigger.send(0)
        trigger.send(completion: .failure(.other))
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(DropUntilOutput)", "value(1)", "failure(boom)"])
    }

    @Test func upstreamCompletionCancelsThePendingOther() {
        let upstream = TestPublisher<Int, Never>()
        let trigger = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.drop(untilOutputFrom: trigger).subscribe(tracker)
        upstream.send(completion: .finished)
        #expect(trigger.subscription?.cancelCount == 1)
        #expect(tracker.history == ["subscription(DropUntilOutput)", "finished"])
    }

    @Test func oneAtATimeGetsExactlyOnePerRequest() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        (0..<4).publisher.drop(untilOutputFrom: Just(())).subscribe(tracker)
        #expect(tracker.values == [0])
        tracker.request(.max(1))
        #expect(tracker.values == [0, 1])
        tracker.request(.max(2))
        #expect(tracker.history == ["subscription(DropUntilOutput)", "value(0)", "value(1)", "value(2)", "value(3)",
                                    "finished"])
    }

    @Test func cancelReachesUpstreamAndTrigger() {
        let upstream = TestPublisher<Int, Never>()
        let trigger = TestPublisher<Int, Never>()
        let subscriber = ManualSubscriber<Int, Never>()
        upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
        subscriber.subscription?.request(.max(1))
        subscriber.subscription?.cancel()
        subscriber.subscription?.cancel()
        #expect(upstream.subscription?.cancelCount == 1)
        #expect(trigger.subscription?.cancelCount == 1)
        trigger.send(1)
        upstream.send(1)
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completions.isEmpty)
    }

    @Test func cancelReleasesTheChain() {
        let subject = PassthroughSubject<Int, TestError>()
        let trigger = PassthroughSubject<Void, TestError>()
        weak var weakTracker: TrackingSubscriber<Int, TestError>?
        do {
            let tracker = TrackingSubscriber<Int, TestError>()
            weakTracker = tracker
            subject.drop(untilOutputFrom: trigger).subscribe(tracker)
            trigger.send()
            subject.send(1)
            #expect(tracker.values == [1])
            tracker.cancel()
        }
        #expect(weakTracker == nil)
    }

    @Test func contract() {
        OperatorChecks.cancelReachesUpstream { $0.drop(untilOutputFrom: PassthroughSubject<Int, TestError>()) }
        OperatorChecks.completionReleasesTheChain { $0.drop(untilOutputFrom: PassthroughSubject<Int, TestError>()) }
        OperatorChecks.secondSubscriptionIsCancelled { $0.drop(untilOutputFrom: PassthroughSubject<Int, Never>()) }
    }
}
