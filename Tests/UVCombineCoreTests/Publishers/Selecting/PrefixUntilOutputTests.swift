import Testing
import UVCombineCore
import UVCombineTesting

@Suite("prefix(untilOutputFrom:)")
struct PrefixUntilOutputTests {
    @Test func republishesUntilTheOtherEmitsThenCancelsBoth() {
        let upstream = TestPublisher<Int, TestError>()
        let trigger = TestPublisher<String, Never>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.prefix(untilOutputFrom: trigger).subscribe(tracker)
        #expect(trigger.subscription?.requested == [.max(1)])
        upstream.send(1)
        upstream.send(2)
        #expect(trigger.send("stop") == .none)
        #expect(upstream.subscription?.cancelCount == 1)
        #expect(trigger.subscription?.cancelCount == 1)
        upstream.send(3)
        upstream.send(completion: .finished)
        #expect(untilOutputHistory(tracker) == ["subscription(PrefixUntilOutput)", "value(1)", "value(2)", "finished"])
    }

    @Test func theOthersCompletionIsIgnored() {
        let upstream = TestPublisher<Int, TestError>()
        let trigger = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.prefix(untilOutputFrom: trigger).subscribe(tracker)
        trigger.send(completion: .failure(.other))
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(untilOutputHistory(tracker) == ["subscription(PrefixUntilOutput)", "value(1)", "failure(boom)"])
        #expect(upstream.subscription?.isCancelled == false)
    }

    @Test func upstreamCompletionCancelsTheOther() {
        let upstream = TestPublisher<Int, TestError>()
        let trigger = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.prefix(untilOutputFrom: trigger).subscribe(tracker)
        upstream.send(completion: .finished)
        #expect(trigger.subscription?.cancelCount == 1)
        trigger.send(1)
        #expect(untilOutputHistory(tracker) == ["subscription(PrefixUntilOutput)", "finished"])
    }

    @Test func aTriggerThatFiresAtOnceEndsBeforeAnyValue() {
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.prefix(untilOutputFrom: Just(())).subscribe(tracker)
        // As Combine: the trigger fired before the upstream's subscription
        // came, so the subscriber gets the completion alone.
        #expect(tracker.history == ["finished"])
        #expect(upstream.subscription?.isCancelled == true)
        #expect(upstream.subscription?.requested == [])
    }

    @Test func demandRequestedBeforeTheUpstreamArrivesIsForwarded() {
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(2), demandPerValue: { _ in .max(1) })
        upstream.prefix(untilOutputFrom: PassthroughSubject<Void, Never>()).subscribe(tracker)
        #expect(upstream.subscription?.requested == [.max(2)])
        #expect(upstream.send(1) == .max(1))
        tracker.request(.max(3))
        #expect(upstream.subscription?.requested == [.max(2), .max(3)])
    }

    @Test func oneAtATimeGetsExactlyOnePerRequest() {
        let trigger = PassthroughSubject<Void, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        (0..<5).publisher.prefix(untilOutputFrom: trigger).subscribe(tracker)
        #expect(tracker.values == [0])
        tracker.request(.max(1))
        #expect(tracker.values == [0, 1])
        trigger.send()
        tracker.request(.max(1))
        #expect(untilOutputHistory(tracker) == ["subscription(PrefixUntilOutput)", "value(0)", "value(1)", "finished"])
    }

    @Test func theTriggerFiringDuringADeliveryFinishesAfterIt() {
        let subject = PassthroughSubject<Int, Never>()
        let trigger = PassthroughSubject<Void, Never>()
        let tracker = TrackingSubscriber<Int, Never>(onValue: { v in if v == 2 { trigger.send() } })
        subject.prefix(untilOutputFrom: trigger).subscribe(tracker)
        subject.send(1)
        subject.send(2)
        subject.send(3)
        #expect(untilOutputHistory(tracker) == ["subscription(PrefixUntilOutput)", "value(1)", "value(2)", "finished"])
    }

    @Test func cancelReachesUpstreamAndTrigger() {
        let upstream = TestPublisher<Int, Never>()
        let trigger = TestPublisher<Int, Never>()
        let subscriber = ManualSubscriber<Int, Never>()
        upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
        subscriber.subscription?.request(.max(1))
        subscriber.subscription?.cancel()
        subscriber.subscription?.cancel()
        #expect(upstream.subscription?.cancelCount == 1)
        #expect(trigger.subscription?.cancelCount == 1)
        subscriber.subscription?.request(.max(1))
        #expect(upstream.subscription?.requested == [.max(1)])
        upstream.send(1)
        trigger.send(1)
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completions.isEmpty)
    }

    @Test func cancelReleasesUpstreamTriggerAndSubscriber() {
        let subject = PassthroughSubject<Int, TestError>()
        let trigger = PassthroughSubject<Void, Never>()
        weak var weakTracker: TrackingSubscriber<Int, TestError>?
        do {
            let tracker = TrackingSubscriber<Int, TestError>()
            weakTracker = tracker
            subject.prefix(untilOutputFrom: trigger).subscribe(tracker)
            subject.send(1)
            tracker.cancel()
        }
        #expect(weakTracker == nil)
    }

    @Test func triggerReleasesTheChain() {
        let subject = PassthroughSubject<Int, Never>()
        let trigger = PassthroughSubject<Void, Never>()
        weak var weakTracker: TrackingSubscriber<Int, Never>?
        do {
            let tracker = TrackingSubscriber<Int, Never>()
            weakTracker = tracker
            subject.prefix(untilOutputFrom: trigger).subscribe(tracker)
            trigger.send()
            #expect(tracker.completion == .finished)
        }
        #expect(weakTracker == nil)
    }

    @Test func contract() {
        OperatorChecks.cancelReachesUpstream { $0.prefix(untilOutputFrom: PassthroughSubject<Int, Never>()) }
        OperatorChecks.completionReleasesTheChain { $0.prefix(untilOutputFrom: PassthroughSubject<Int, Never>()) }
        OperatorChecks.secondSubscriptionIsCancelled { $0.prefix(untilOutputFrom: PassthroughSubject<Int, Never>()) }
    }
}
