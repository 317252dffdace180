import Testing
import UVCombineCore
import UVCombineTesting

/// `prefix(untilOutputFrom:)` as Combine: trigger rules, misuse, lifecycle,
/// debug output.
@Suite("prefix(untilOutputFrom:) as Combine")
struct PrefixUntilOutputCompatTests {
    @Test(arguments: [Subscribers.Completion<TestError>.finished, .failure(.boom)])
    func aTriggerThatEndsWithoutAValueIsIgnored(_ end: Subscribers.Completion<TestError>) {
        let upstream = TestPublisher<Int, Never>()
        let trigger = TestPublisher<Void, TestError>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.prefix(untilOutputFrom: trigger).subscribe(tracker)
        trigger.send(completion: end)
        upstream.send(1)
        upstream.send(2)
        #expect(untilOutputHistory(tracker) == ["subscription(PrefixUntilOutput)", "value(1)", "value(2)"])
        #expect(upstream.subscription?.isCancelled == false)
        // An ended trigger is dropped, not cancelled; a late value from it
        // changes nothing.
        #expect(trigger.subscription?.isCancelled == false)
        trigger.send(())
        upstream.send(3)
        upstream.send(completion: .finished)
        #expect(untilOutputHistory(tracker) == ["subscription(PrefixUntilOutput)", "value(1)", "value(2)", "value(3)",
                                    "finished"])
    }

    @Test func emptyAndFailTriggersLetEverythingThrough() {
        let finished = TrackingSubscriber<Int, Never>()
        [1, 2].publisher.prefix(untilOutputFrom: Empty<Void, Never>()).subscribe(finished)
        #expect(untilOutputHistory(finished) == ["subscription(PrefixUntilOutput)", "value(1)", "value(2)", "finished"])
        let failed = TrackingSubscriber<Int, Never>()
        [1, 2].publisher.prefix(untilOutputFrom: Fail<Void, TestError>(error: .boom)).subscribe(failed)
        #expect(untilOutputHistory(failed) == ["subscription(PrefixUntilOutput)", "value(1)", "value(2)", "finished"])
    }

    @Test func theTriggerIsCancelledOnceItEmitsAfterTheUpstream() {
        let log = CmbEventLog()
        let upstream = CmbManualPublisher<Int, Never>(subscription: CmbLoggedSubscription("upstream", log))
        let trigger = CmbManualPublisher<Void, Never>(subscription: CmbLoggedSubscription("trigger", log))
        upstream.prefix(untilOutputFrom: trigger).subscribe(CmbLoggingSubscriber<Int, Never>(log))
        #expect(trigger.send(()) == .none)
        #expect(log.all == ["trigger.request(max(1))", "upstream.request(unlimited)",
                            "upstream.cancel", "trigger.cancel", "finished"])
    }

    @Test func subscribesTheTriggerFirstAndHandsTheSubscriptionOverWhenTheUpstreamSendsIt() {
        let upstream = CmbManualPublisher<Int, Never>()
        let trigger = TestPublisher<Void, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(2))
        upstream.prefix(untilOutputFrom: trigger).subscribe(tracker)
        #expect(trigger.subscription?.requested == [.max(1)])
        #expect(tracker.history.isEmpty)
        let subscription = CmbProbeSubscription()
        upstream.send(subscription: subscription)
        #expect(untilOutputHistory(tracker) == ["subscription(PrefixUntilOutput)"])
        #expect(subscription.requested == [.max(2)])
    }

    @Test func aTriggerBeforeTheUpstreamSubscriptionFinishesAlone() {
        let upstream = CmbManualPublisher<Int, Never>()
        let trigger = TestPublisher<Void, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.prefix(untilOutputFrom: trigger).subscribe(tracker)
        trigger.send(())
        #expect(tracker.history == ["finished"])
        let late = CmbProbeSubscription()
        upstream.send(subscription: late)
        #expect(late.cancelCount == 1)
        #expect(tracker.history == ["finished"])
    }

    @Test func eventsBeforeTheSubscriptionAreIgnored() {
        let upstream = CmbManualPublisher<Int, Never>()
        let trigger = TestPublisher<Void, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.prefix(untilOutputFrom: trigger).subscribe(tracker)
        #expect(upstream.send(1) == .none)
        // A completion before the subscription: the trigger is cancelled and
        // the subscriber, which has no subscription yet, hears nothing.
        upstream.send(completion: .finished)
        #expect(trigger.subscription?.cancelCount == 1)
        #expect(tracker.history.isEmpty)
        let late = CmbProbeSubscription()
        upstream.send(subscription: late)
        #expect(late.cancelCount == 1)
        #expect(tracker.history.isEmpty)
    }

    @Test func requestAndCancelBeforeTheSubscription() throws {
        let upstream = CmbManualPublisher<Int, Never>()
        let trigger = TestPublisher<Void, Never>()
        upstream.prefix(untilOutputFrom: trigger).subscribe(TrackingSubscriber<Int, Never>())
        let operatorSubscription = try #require(upstream.subscriberAsSubscription)
        operatorSubscription.request(.max(1))
        operatorSubscription.request(.none)
        operatorSubscription.cancel()
        #expect(trigger.subscription?.cancelCount == 1)
        let late = CmbProbeSubscription()
        upstream.send(subscription: late)
        #expect(late.cancelCount == 1)
        #expect(late.requested.isEmpty)
    }

    @Test func requestNoneIsAccepted() {
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        upstream.prefix(untilOutputFrom: PassthroughSubject<Void, Never>()).subscribe(tracker)
        tracker.request(.none)
        // Forwarded, as Combine does.
        #expect(upstream.subscription?.requested == [.none])
    }

    @Test func cancelCancelsTheUpstreamThenTheTrigger() {
        let log = CmbEventLog()
        let upstream = CmbManualPublisher<Int, Never>(subscription: CmbLoggedSubscription("upstream", log))
        let trigger = CmbManualPublisher<Void, Never>(subscription: CmbLoggedSubscription("trigger", log))
        let subscriber = CmbLoggingSubscriber<Int, Never>(log, initialDemand: .max(1))
        upstream.prefix(untilOutputFrom: trigger).subscribe(subscriber)
        subscriber.subscription?.cancel()
        subscriber.subscription?.cancel()
        #expect(log.all == ["trigger.request(max(1))", "upstream.request(max(1))", "upstream.cancel", "trigger.cancel"])
    }

    @Test func secondSubscriptionsAreCancelled() {
        let upstream = CmbManualPublisher<Int, Never>()
        let trigger = CmbManualPublisher<Void, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.prefix(untilOutputFrom: trigger).subscribe(tracker)
        let first = CmbProbeSubscription()
        let second = CmbProbeSubscription()
        trigger.send(subscription: first)
        trigger.send(subscription: second)
        #expect(first.requested == [.max(1)])
        #expect(second.cancelCount == 1)
        let upstreamFirst = CmbProbeSubscription()
        let upstreamSecond = CmbProbeSubscription()
        upstream.send(subscription: upstreamFirst)
        upstream.send(subscription: upstreamSecond)
        #expect(upstreamSecond.cancelCount == 1)
        #expect(upstreamFirst.cancelCount == 0)
        #expect(tracker.subscriptionNames.count == 1)
    }

    @Test func debugOutputAndIdentity() throws {
        let upstream = CmbManualPublisher<Int, Never>()
        let trigger = CmbManualPublisher<Void, Never>()
        upstream.prefix(untilOutputFrom: trigger).subscribe(TrackingSubscriber<Int, Never>())
        let inner = try #require(upstream.subscriber)
        let triggerSide = try #require(trigger.subscriber)
        #expect(upstream.subscriberIdentifier == trigger.subscriberIdentifier)
        // Combine's inner types customise no debug output (OpenCombine's
        // `testPrefixUntilOutputReflection`, written against Combine).
        for object in [inner, triggerSide] {
            #expect(!(object is any CustomStringConvertible))
            #expect(!(object is any CustomReflectable))
            #expect(!(object is any CustomPlaygroundDisplayConvertible))
        }
        #expect(String(describing: inner).hasPrefix("UVCombineCore.Publishers.PrefixUntilOutput<"))
    }

    /// The upstream here keeps its subscriber (the operator) for ever; the
    /// operator must still let go of its downstream and its links.
    @Test func releasesTheDownstreamOnTriggerCompletionAndCancel() {
        weak var weakTracker: TrackingSubscriber<Int, Never>?
        let upstream = TestPublisher<Int, Never>()
        let trigger = TestPublisher<Void, Never>()
        do {
            let tracker = TrackingSubscriber<Int, Never>()
            weakTracker = tracker
            upstream.prefix(untilOutputFrom: trigger).subscribe(tracker)
            trigger.send(())
        }
        #expect(weakTracker == nil)
        do {
            let tracker = TrackingSubscriber<Int, Never>()
            weakTracker = tracker
            upstream.prefix(untilOutputFrom: trigger).subscribe(tracker)
            upstream.send(completion: .finished)
        }
        #expect(weakTracker == nil)
        do {
            let tracker = TrackingSubscriber<Int, Never>()
            weakTracker = tracker
            upstream.prefix(untilOutputFrom: trigger).subscribe(tracker)
            tracker.cancel()
        }
        #expect(weakTracker == nil)
    }
}

/// `drop(untilOutputFrom:)` as Combine.
@Suite("drop(untilOutputFrom:) as Combine")
struct DropUntilOutputCompatTests {
    @Test func droppedValuesConsumeDemandAndTheTriggerIsCancelledOnceItEmits() {
        let log = CmbEventLog()
        let upstream = CmbManualPublisher<Int, Never>(subscription: CmbLoggedSubscription("upstream", log))
        let trigger = CmbManualPublisher<Void, Never>(subscription: CmbLoggedSubscription("trigger", log))
        upstream.drop(untilOutputFrom: trigger).subscribe(CmbLoggingSubscriber<Int, Never>(log, initialDemand: .max(2)))
        #expect(upstream.send(1) == .none)
        #expect(trigger.send(()) == .none)
        #expect(upstream.send(2) == .none)
        #expect(log.all == ["trigger.request(max(1))", "upstream.request(max(2))", "trigger.cancel", "value(2)"])
    }

    @Test func aDroppedValueBeyondTheDemandTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let upstream = TestPublisher<Int, Never>()
            let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
            upstream.drop(untilOutputFrom: PassthroughSubject<Void, Never>()).subscribe(tracker)
            upstream.send(1)
            upstream.send(2)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("DropUntilOutput received a value beyond the demand requested"))
    }

    @Test func demandBeforeTheUpstreamSubscriptionIsSummedAndSent() {
        let upstream = CmbManualPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(10))
        upstream.drop(untilOutputFrom: PassthroughSubject<Void, Never>()).subscribe(tracker)
        tracker.request(.max(4))
        tracker.request(.none)
        let subscription = CmbProbeSubscription()
        upstream.send(subscription: subscription)
        #expect(subscription.requested == [.max(14)])
    }

    @Test func aCompletionBeforeTheSubscriptionIsForwarded() {
        let upstream = CmbManualPublisher<Int, Never>()
        let trigger = TestPublisher<Void, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.drop(untilOutputFrom: trigger).subscribe(tracker)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(DropUntilOutput)", "finished"])
        #expect(trigger.subscription?.cancelCount == 1)
        let late = CmbProbeSubscription()
        upstream.send(subscription: late)
        #expect(late.cancelCount == 1)
    }

    @Test(arguments: [Subscribers.Completion<TestError>.finished, .failure(.boom)])
    func aTriggerThatEndsWithoutAValueEndsTheStream(_ end: Subscribers.Completion<TestError>) {
        let upstream = TestPublisher<Int, TestError>()
        let trigger = TestPublisher<Void, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.drop(untilOutputFrom: trigger).subscribe(tracker)
        upstream.send(1)
        trigger.send(completion: end)
        trigger.send(completion: .finished)
        #expect(upstream.subscription?.cancelCount == 1)
        #expect(trigger.subscription?.isCancelled == false)
        upstream.send(2)
        let expected = end == .finished ? "finished" : "failure(boom)"
        #expect(tracker.history == ["subscription(DropUntilOutput)", expected])
    }

    @Test func cancelBeforeTheSubscriptionCancelsItOnArrival() throws {
        let upstream = CmbManualPublisher<Int, Never>()
        let trigger = TestPublisher<Void, Never>()
        upstream.drop(untilOutputFrom: trigger).subscribe(TrackingSubscriber<Int, Never>())
        try #require(upstream.subscriberAsSubscription).cancel()
        #expect(trigger.subscription?.cancelCount == 1)
        let late = CmbProbeSubscription()
        upstream.send(subscription: late)
        #expect(late.cancelCount == 1)
        #expect(late.requested.isEmpty)
    }

    @Test func cancelCancelsTheUpstreamThenTheTrigger() {
        let log = CmbEventLog()
        let upstream = CmbManualPublisher<Int, Never>(subscription: CmbLoggedSubscription("upstream", log))
        let trigger = CmbManualPublisher<Void, Never>(subscription: CmbLoggedSubscription("trigger", log))
        let subscriber = CmbLoggingSubscriber<Int, Never>(log, initialDemand: .none)
        upstream.drop(untilOutputFrom: trigger).subscribe(subscriber)
        subscriber.subscription?.cancel()
        subscriber.subscription?.cancel()
        #expect(log.all == ["trigger.request(max(1))", "upstream.cancel", "trigger.cancel"])
    }

    @Test func debugOutputAndIdentity() throws {
        let upstream = CmbManualPublisher<Int, Never>()
        let trigger = CmbManualPublisher<Void, Never>()
        upstream.drop(untilOutputFrom: trigger).subscribe(TrackingSubscriber<Int, Never>())
        let inner = try #require(upstream.subscriber)
        let triggerSide = try #require(trigger.subscriber)
        #expect(upstream.subscriberIdentifier == trigger.subscriberIdentifier)
        for object in [inner, triggerSide] {
            #expect(cmbDebugStrings(object).description == "DropUntilOutput")
            #expect(cmbDebugStrings(object).playground == "DropUntilOutput")
            #expect(cmbMirrorChildren(object).isEmpty)
        }
    }

    @Test func releasesTheDownstreamOnCompletionAndCancel() {
        weak var weakTracker: TrackingSubscriber<Int, TestError>?
        let upstream = TestPublisher<Int, TestError>()
        let trigger = TestPublisher<Void, TestError>()
        do {
            let tracker = TrackingSubscriber<Int, TestError>()
            weakTracker = tracker
            upstream.drop(untilOutputFrom: trigger).subscribe(tracker)
            trigger.send(completion: .finished)
        }
        #expect(weakTracker == nil)
        do {
            let tracker = TrackingSubscriber<Int, TestError>()
            weakTracker = tracker
            upstream.drop(untilOutputFrom: trigger).subscribe(tracker)
            upstream.send(completion: .failure(.boom))
        }
        #expect(weakTracker == nil)
        do {
            let tracker = TrackingSubscriber<Int, TestError>()
            weakTracker = tracker
            upstream.drop(untilOutputFrom: trigger).subscribe(tracker)
            tracker.cancel()
        }
        #expect(weakTracker == nil)
    }
}

/// A tracker's history with the subscription's name shortened: Combine's
/// `PrefixUntilOutput` subscription has no description of its own, so it
/// prints as its type, `UVCombineCore.Publishers.PrefixUntilOutput<…>.Inner<…>`
/// here; that name becomes `PrefixUntilOutput` (any other stays as it is).
func untilOutputHistory<Input, Failure: Error>(_ tracker: TrackingSubscriber<Input, Failure>) -> [String] {
    tracker.history.map { event in
        let isInner = event.hasPrefix("subscription(UVCombineCore.Publishers.PrefixUntilOutput<")
            && event.contains(">.Inner<")
        return isInner ? "subscription(PrefixUntilOutput)" : event
    }
}
