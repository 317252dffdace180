import Synchronization
import Testing
import UVCombineCore
import UVCombineTesting

/// Fails synchronously on subscription for the first `failures` attempts,
/// then emits `value` and finishes; counts its subscriptions.
private final class FlakyPublisher: Publisher, @unchecked Sendable {
    typealias Output = Int
    typealias Failure = TestError

    let failures: Int
    private let count = Mutex(0)
    var subscribeCount: Int { count.withLock { $0 } }

    init(failures: Int) {
        self.failures = failures
    }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {
        let attempt = count.withLock { c -> Int in
            c += 1
            return c
        }
        if attempt <= failures {
            Fail<Int, TestError>(error: .boom).subscribe(subscriber)
        } else {
            Just(attempt).setFailureType(to: TestError.self).subscribe(subscriber)
        }
    }
}

@Suite("Retry")
struct RetryTests {
    @Test func subscribesAtMostNPlusOneTimes() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.retry(2).subscribe(tracker)
        #expect(upstream.allSubscriptions.count == 1)
        upstream.send(completion: .failure(.boom))
        #expect(upstream.allSubscriptions.count == 2)
        upstream.send(completion: .failure(.boom))
        #expect(upstream.allSubscriptions.count == 3)
        upstream.send(completion: .failure(.other))
        #expect(upstream.allSubscriptions.count == 3)
        #expect(tracker.history == ["subscription(Retry)", "failure(other)"])
    }

    @Test func demandCarriesOverToTheNewSubscription() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .max(3))
        upstream.retry(1).subscribe(tracker)
        #expect(upstream.subscription?.requested == [.max(3)])
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(upstream.allSubscriptions.count == 2)
        #expect(upstream.allSubscriptions[1].requested == [.max(2)])
        upstream.send(2)
        upstream.send(3)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(Retry)", "value(1)", "value(2)", "value(3)", "finished"])
    }

    @Test func moreDemandFromReceiveIsRequestedAndCarriedOver() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .max(1), demandPerValue: { _ in .max(2) })
        upstream.retry(1).subscribe(tracker)
        #expect(upstream.send(1) == .none)
        #expect(upstream.subscription?.requested == [.max(1), .max(2)])
        upstream.send(completion: .failure(.boom))
        #expect(upstream.allSubscriptions[1].requested == [.max(2)])
    }

    @Test func finishedPassesThroughWithoutRetrying() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.retry(3).subscribe(tracker)
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(upstream.allSubscriptions.count == 1)
        #expect(tracker.history == ["subscription(Retry)", "value(1)", "finished"])
    }

    @Test func retryZeroPassesTheFirstFailure() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.retry(0).subscribe(tracker)
        upstream.send(completion: .failure(.boom))
        #expect(upstream.allSubscriptions.count == 1)
        #expect(tracker.history == ["subscription(Retry)", "failure(boom)"])
    }

    @Test func cancelReachesTheCurrentUpstream() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.retry(3).subscribe(tracker)
        upstream.send(completion: .failure(.boom))
        tracker.cancel()
        #expect(upstream.allSubscriptions[0].isCancelled == false)
        #expect(upstream.allSubscriptions[1].isCancelled == true)
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(upstream.allSubscriptions.count == 2)
        #expect(tracker.history == ["subscription(Retry)"])
    }

    @Test func demandMaxOneAtATimeAcrossAttempts() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .max(1), demandPerValue: { _ in .max(1) })
        upstream.retry(1).subscribe(tracker)
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(upstream.allSubscriptions[1].requested == [.max(1)])
        upstream.send(2)
        #expect(tracker.values == [1, 2])
    }

    @Test func exactlyOneValuePerRequest() {
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        FlakyPublisher(failures: 2).retry(2).subscribe(tracker)
        #expect(tracker.history == ["subscription(Retry)"])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(Retry)", "value(3)", "finished"])
    }

    @Test func synchronousFailuresDoNotRecurse() {
        let flaky = FlakyPublisher(failures: 20_000)
        let tracker = TrackingSubscriber<Int, TestError>()
        flaky.retry(20_000).subscribe(tracker)
        #expect(flaky.subscribeCount == 20_001)
        #expect(tracker.history == ["subscription(Retry)", "value(20001)", "finished"])

        let hopeless = FlakyPublisher(failures: .max)
        let failed = TrackingSubscriber<Int, TestError>()
        hopeless.retry(5).subscribe(failed)
        #expect(hopeless.subscribeCount == 6)
        #expect(failed.history == ["subscription(Retry)", "failure(boom)"])
    }

    @Test func unlimitedRetriesWithNilOrNegative() {
        let a = FlakyPublisher(failures: 100)
        let trackerA = TrackingSubscriber<Int, TestError>()
        Publishers.Retry(upstream: a, retries: nil).subscribe(trackerA)
        #expect(trackerA.values == [101])
        let b = FlakyPublisher(failures: 100)
        let trackerB = TrackingSubscriber<Int, TestError>()
        b.retry(-1).subscribe(trackerB)
        #expect(trackerB.values == [101])
    }

    @Test func everythingDeinitialisesAfterCancel() {
        weak var weakUpstream: PassthroughSubject<Int, TestError>?
        weak var weakInner: AnyObject?
        do {
            let upstream = PassthroughSubject<Int, TestError>()
            let catcher = SubscriptionCatcher<Int, TestError>()
            upstream.retry(2).subscribe(catcher)
            upstream.send(1)
            weakUpstream = upstream
            weakInner = catcher.subscriptionObject
            catcher.cancel()
        }
        #expect(weakUpstream == nil)
        #expect(weakInner == nil)
    }

    @Test func everythingDeinitialisesAfterTheFinalFailure() {
        weak var weakInner: AnyObject?
        let catcher = SubscriptionCatcher<Int, TestError>()
        do {
            let flaky = FlakyPublisher(failures: .max)
            flaky.retry(3).subscribe(catcher)
            weakInner = catcher.subscriptionObject
        }
        #expect(catcher.completion == .failure(.boom))
        #expect(weakInner == nil)
    }
}
