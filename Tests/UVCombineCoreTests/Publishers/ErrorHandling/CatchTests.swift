import Testing
import UVCombineCore
import UVCombineTesting

@Suite("Catch")
struct CatchTests {
    @Test func replacesAFailedUpstream() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.catch { _ in [7, 8].publisher }.subscribe(tracker)
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(Catch)", "value(1)", "value(7)", "value(8)", "finished"])
    }

    @Test func handlerReceivesTheError() {
        var caught: [TestError] = []
        let tracker = TrackingSubscriber<Int, Never>()
        Fail<Int, TestError>(error: .other).catch { error -> Just<Int> in
            caught.append(error)
            return Just(-1)
        }.subscribe(tracker)
        #expect(caught == [.other])
        #expect(tracker.history == ["subscription(Catch)", "value(-1)", "finished"])
    }

    @Test func finishedUpstreamFinishesWithoutCallingTheHandler() {
        var calls = 0
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.catch { _ -> Just<Int> in
            calls += 1
            return Just(0)
        }.subscribe(tracker)
        upstream.send(1)
        upstream.send(completion: .finished)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(Catch)", "value(1)", "finished"])
        #expect(calls == 0)
    }

    @Test func replacementFailurePassesThrough() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.catch { _ in Fail<Int, TestError>(error: .other) }.subscribe(tracker)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(Catch)", "failure(other)"])
    }

    @Test func replacementGetsTheRemainingDemand() {
        let upstream = TestPublisher<Int, TestError>()
        let replacement = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(12), demandPerValue: { _ in .max(3) })
        upstream.catch { _ in replacement }.subscribe(tracker)
        tracker.request(.max(5))
        #expect(upstream.subscription?.requested == [.max(12), .max(5)])
        for i in 1...8 {
            // More demand from the downstream passes straight up.
            #expect(upstream.send(i) == .max(3))
        }
        upstream.send(completion: .failure(.boom))
        // 12 + 5 requested, 8 delivered, 8 × 3 added: 33 outstanding.
        #expect(replacement.subscription?.requested == [.max(33)])
        #expect(tracker.values == Array(1...8))
    }

    @Test func remainingDemandAfterOneValue() {
        let upstream = TestPublisher<Int, TestError>()
        let replacement = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(3))
        upstream.catch { _ in replacement }.subscribe(tracker)
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(replacement.subscription?.requested == [.max(2)])
        replacement.send(2)
        replacement.send(3)
        replacement.send(completion: .finished)
        #expect(tracker.history == ["subscription(Catch)", "value(1)", "value(2)", "value(3)", "finished"])
    }

    @Test func noDemandMeansNoRequestToTheReplacementUntilAsked() {
        let upstream = TestPublisher<Int, TestError>()
        let replacement = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        upstream.catch { _ in replacement }.subscribe(tracker)
        upstream.send(completion: .failure(.boom))
        #expect(replacement.subscription?.requested == [])
        tracker.request(.max(4))
        #expect(replacement.subscription?.requested == [.max(4)])
        #expect(upstream.subscription?.requested == [])
    }

    @Test func demandMaxOneAtATimeAcrossTheSwitch() {
        let upstream = PassthroughSubject<Int, TestError>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: { _ in .max(1) })
        upstream.catch { _ in [10, 20, 30].publisher }.subscribe(tracker)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(Catch)", "value(1)", "value(2)", "value(10)", "value(20)", "value(30)", "finished"])
    }

    @Test func exactlyOneValuePerRequestFromTheReplacement() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        Fail<Int, TestError>(error: .boom).catch { _ in [10, 20, 30].publisher }.subscribe(tracker)
        tracker.request(.max(1))
        #expect(tracker.values == [10])
        tracker.request(.max(1))
        #expect(tracker.values == [10, 20])
    }

    @Test func cancelBeforeFailureReachesUpstreamAndSkipsTheHandler() {
        var calls = 0
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.catch { _ -> Just<Int> in
            calls += 1
            return Just(0)
        }.subscribe(tracker)
        upstream.send(1)
        tracker.cancel()
        #expect(upstream.subscription?.isCancelled == true)
        upstream.send(completion: .failure(.boom))
        #expect(calls == 0)
        #expect(tracker.history == ["subscription(Catch)", "value(1)"])
    }

    @Test func cancelAfterRecoveryReachesTheReplacement() {
        let upstream = TestPublisher<Int, TestError>()
        let replacement = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.catch { _ in replacement }.subscribe(tracker)
        upstream.send(completion: .failure(.boom))
        replacement.send(1)
        tracker.cancel()
        #expect(replacement.subscription?.isCancelled == true)
        #expect(upstream.subscription?.isCancelled == false)
        // Combine's catch forwards what the replacement still sends.
        replacement.send(2)
        #expect(tracker.history == ["subscription(Catch)", "value(1)", "value(2)"])
    }

    /// Combine's catch ignores a cancel that comes while the replacement is
    /// being subscribed: the replacement gets the demand and is forwarded.
    @Test func cancelWhileTheReplacementIsBeingSubscribedIsIgnored() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, Never>()
        let replacement = TestPublisher<Int, Never>()
        upstream.catch { _ -> TestPublisher<Int, Never> in
            tracker.cancel() // the downstream cancels before the replacement answers
            return replacement
        }.subscribe(tracker)
        upstream.send(completion: .failure(.boom))
        #expect(replacement.subscription?.isCancelled == false)
        #expect(replacement.subscription?.requested == [.unlimited])
        replacement.send(1)
        replacement.send(completion: .finished)
        #expect(tracker.history == ["subscription(Catch)", "value(1)", "finished"])
    }

    @Test func requestWhileTheReplacementIsBeingSubscribedIsPassedOn() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(3))
        let replacement = TestPublisher<Int, Never>()
        upstream.catch { _ -> TestPublisher<Int, Never> in
            tracker.request(.max(10))
            return replacement
        }.subscribe(tracker)
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(replacement.subscription?.requested == [.max(12)])
    }

    @Test func everythingDeinitialisesAfterCancel() {
        weak var weakUpstream: PassthroughSubject<Int, TestError>?
        weak var weakReplacement: PassthroughSubject<Int, Never>?
        weak var weakInner: AnyObject?
        do {
            let upstream = PassthroughSubject<Int, TestError>()
            let replacement = PassthroughSubject<Int, Never>()
            let catcher = SubscriptionCatcher<Int, Never>()
            upstream.catch { _ in replacement }.subscribe(catcher)
            upstream.send(1)
            upstream.send(completion: .failure(.boom))
            replacement.send(2)
            #expect(catcher.values == [1, 2])
            weakUpstream = upstream
            weakReplacement = replacement
            weakInner = catcher.subscriptionObject
            catcher.cancel()
        }
        #expect(weakUpstream == nil)
        #expect(weakReplacement == nil)
        #expect(weakInner == nil)
    }

    @Test func everythingDeinitialisesAfterCancelBeforeFailure() {
        weak var weakUpstream: PassthroughSubject<Int, TestError>?
        weak var weakInner: AnyObject?
        do {
            let upstream = PassthroughSubject<Int, TestError>()
            let catcher = SubscriptionCatcher<Int, Never>()
            upstream.catch { _ in Just(0) }.subscribe(catcher)
            weakUpstream = upstream
            weakInner = catcher.subscriptionObject
            catcher.cancel()
        }
        #expect(weakUpstream == nil)
        #expect(weakInner == nil)
    }
}
