import Testing
import UVCombineCore
import UVCombineTesting

/// `append`/`prepend` (`Publishers.Concatenate`) as Combine: backpressure,
/// misuse, lifecycle, debug output.
@Suite("Concatenate as Combine")
struct ConcatenateCompatTests {
    @Test func backpressureAcrossThePrefixAndTheSuffix() {
        let log = CmbEventLog()
        let prefix = CmbManualPublisher<Int, Never>(subscription: CmbLoggedSubscription("prefix", log))
        let suffix = CmbManualPublisher<Int, Never>(subscription: CmbLoggedSubscription("suffix", log))
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(10), demandPerValue: { .max($0) })
        suffix.willSubscribe = {
            // Requested while the suffix is being subscribed: it gets it too.
            tracker.request(.max(7))
        }
        prefix.append(suffix).subscribe(tracker)
        // `.none` is accepted and passed on, as Combine does.
        tracker.request(.none)
        #expect(prefix.send(3) == .max(3))
        prefix.send(completion: .finished)
        // 10 - 1 delivered + 3 returned + 7 requested meanwhile.
        #expect(log.all == ["prefix.request(max(10))", "prefix.request(max(0))", "suffix.request(max(19))"])
        tracker.request(.unlimited)
        #expect(suffix.send(5) == .max(5))
        suffix.send(completion: .finished)
        tracker.request(.max(42))
        #expect(log.all == ["prefix.request(max(10))", "prefix.request(max(0))", "suffix.request(max(19))",
                            "suffix.request(unlimited)"])
        #expect(tracker.history == ["subscription(Concatenate)", "value(3)", "value(5)", "finished"])
    }

    @Test func prefixValuesBeyondTheDemandAreDropped() {
        let prefix = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        prefix.append(7).subscribe(tracker)
        #expect(prefix.send(1) == .none)
        #expect(prefix.send(2) == .none)
        prefix.send(completion: .finished)
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(Concatenate)", "value(1)", "value(7)", "finished"])
    }

    @Test func oneValueAtATimeFromSequences() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        [1, 2].publisher.append(Just(3)).subscribe(tracker)
        #expect(tracker.values == [1])
        tracker.request(.max(1))
        #expect(tracker.values == [1, 2])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(Concatenate)", "value(1)", "value(2)", "value(3)", "finished"])
    }

    @Test func secondAndLateSubscriptionsAreCancelled() {
        let prefix = CmbManualPublisher<Int, Never>()
        let suffix = CmbManualPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(3))
        prefix.append(suffix).subscribe(tracker)
        let first = CmbProbeSubscription()
        let second = CmbProbeSubscription()
        prefix.send(subscription: first)
        prefix.send(subscription: second)
        #expect(second.cancelCount == 1)
        #expect(first.requested == [.max(3)])
        prefix.send(completion: .finished)
        let suffixFirst = CmbProbeSubscription()
        let suffixSecond = CmbProbeSubscription()
        suffix.send(subscription: suffixFirst)
        suffix.send(subscription: suffixSecond)
        #expect(suffixFirst.requested == [.max(3)])
        #expect(suffixSecond.cancelCount == 1)
        suffix.send(completion: .finished)
        let late = CmbProbeSubscription()
        suffix.send(subscription: late)
        #expect(late.cancelCount == 1)
        #expect(tracker.history == ["subscription(Concatenate)", "finished"])
    }

    @Test func aPrefixFailureNeverSubscribesTheSuffix() {
        let prefix = TestPublisher<Int, TestError>()
        let suffix = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        prefix.append(suffix).subscribe(tracker)
        prefix.send(completion: .failure(.boom))
        prefix.send(completion: .finished)
        #expect(prefix.send(1) == .none)
        #expect(suffix.subscription == nil)
        #expect(tracker.history == ["subscription(Concatenate)", "failure(boom)"])
    }

    @Test func cancelIsFinal() {
        let prefix = TestPublisher<Int, Never>()
        let suffix = TestPublisher<Int, Never>()
        let subscriber = ManualSubscriber<Int, Never>()
        prefix.append(suffix).subscribe(subscriber)
        subscriber.subscription?.cancel()
        subscriber.subscription?.cancel()
        subscriber.subscription?.request(.max(2))
        #expect(prefix.subscription?.cancelCount == 1)
        #expect(prefix.subscription?.requested == [])
        #expect(prefix.send(0) == .none)
        prefix.send(completion: .finished)
        #expect(suffix.subscription == nil)
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completions.isEmpty)
    }

    @Test func releasesTheSuffixOnCancel() {
        weak var weakSuffix: PassthroughSubject<Int, Never>?
        let prefix = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        do {
            let suffix = PassthroughSubject<Int, Never>()
            weakSuffix = suffix
            prefix.append(suffix).subscribe(tracker)
        }
        #expect(weakSuffix != nil)
        tracker.cancel()
        #expect(weakSuffix == nil)
    }

    @Test func debugOutputAndIdentity() throws {
        let prefix = CmbManualPublisher<Int, Never>(subscription: CmbProbeSubscription())
        let suffix = CmbManualPublisher<Int, Never>(subscription: CmbProbeSubscription())
        let tracker = TrackingSubscriber<Int, Never>()
        prefix.append(suffix).subscribe(tracker)
        prefix.send(completion: .finished)
        let prefixSide = try #require(prefix.subscriber)
        let suffixSide = try #require(suffix.subscriber)
        #expect(prefix.subscriberIdentifier == suffix.subscriberIdentifier)
        #expect(tracker.subscriptionNames == ["Concatenate"])
        for side in [prefixSide, suffixSide] {
            #expect(cmbDebugStrings(side).description == "Concatenate")
            #expect(cmbDebugStrings(side).playground == "Concatenate")
            #expect(cmbMirrorChildren(side).isEmpty)
        }
    }
}
