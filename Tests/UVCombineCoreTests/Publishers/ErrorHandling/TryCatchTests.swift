import Testing
import UVCombineCore
import UVCombineTesting

private struct Thrown: Error, Equatable {}

@Suite("TryCatch")
struct TryCatchTests {
    @Test func replacesAFailedUpstream() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, any Error>()
        upstream.tryCatch { _ in [7, 8].publisher }.subscribe(tracker)
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(TryCatch)", "value(1)", "value(7)", "value(8)", "finished"])
    }

    @Test func thrownErrorFailsDownstream() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, any Error>()
        upstream.tryCatch { error -> Just<Int> in
            guard error == .other else { throw Thrown() }
            return Just(0)
        }.subscribe(tracker)
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.values == [1])
        guard case .failure(let error) = tracker.completion else {
            Issue.record("expected a failure, got \(String(describing: tracker.completion))")
            return
        }
        #expect(error as? Thrown == Thrown())
        #expect(tracker.completionCount == 1)
        // Later events from the dead upstream are ignored.
        upstream.send(completion: .finished)
        #expect(tracker.completionCount == 1)
    }

    @Test func replacementFailurePassesThroughAsAnyError() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, any Error>()
        upstream.tryCatch { _ in Fail<Int, TestError>(error: .other) }.subscribe(tracker)
        upstream.send(completion: .failure(.boom))
        guard case .failure(let error) = tracker.completion else {
            Issue.record("expected a failure")
            return
        }
        #expect(error as? TestError == .other)
    }

    @Test func finishedUpstreamFinishesWithoutCallingTheHandler() {
        var calls = 0
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, any Error>()
        upstream.tryCatch { _ -> Just<Int> in
            calls += 1
            return Just(0)
        }.subscribe(tracker)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(TryCatch)", "finished"])
        #expect(calls == 0)
    }

    @Test func replacementGetsTheRemainingDemand() {
        let upstream = TestPublisher<Int, TestError>()
        let replacement = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, any Error>(initialDemand: .max(3))
        upstream.tryCatch { _ in replacement }.subscribe(tracker)
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(replacement.subscription?.requested == [.max(2)])
    }

    @Test func demandMaxOneAtATime() {
        let tracker = TrackingSubscriber<Int, any Error>(initialDemand: .max(1), demandPerValue: { _ in .max(1) })
        Fail<Int, TestError>(error: .boom).tryCatch { _ in [1, 2, 3].publisher }.subscribe(tracker)
        #expect(tracker.history == ["subscription(TryCatch)", "value(1)", "value(2)", "value(3)", "finished"])
        let one = TrackingSubscriber<Int, any Error>(initialDemand: .max(1))
        Fail<Int, TestError>(error: .boom).tryCatch { _ in [1, 2, 3].publisher }.subscribe(one)
        #expect(one.values == [1])
    }

    @Test func cancelReachesUpstreamThenReplacement() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, any Error>()
        upstream.tryCatch { _ in Just(0) }.subscribe(tracker)
        tracker.cancel()
        #expect(upstream.subscription?.isCancelled == true)

        let upstream2 = TestPublisher<Int, TestError>()
        let replacement = TestPublisher<Int, Never>()
        let tracker2 = TrackingSubscriber<Int, any Error>()
        upstream2.tryCatch { _ in replacement }.subscribe(tracker2)
        upstream2.send(completion: .failure(.boom))
        tracker2.cancel()
        #expect(replacement.subscription?.isCancelled == true)
    }

    @Test func everythingDeinitialisesAfterCancel() {
        weak var weakUpstream: PassthroughSubject<Int, TestError>?
        weak var weakReplacement: PassthroughSubject<Int, Never>?
        weak var weakInner: AnyObject?
        do {
            let upstream = PassthroughSubject<Int, TestError>()
            let replacement = PassthroughSubject<Int, Never>()
            let catcher = SubscriptionCatcher<Int, any Error>()
            upstream.tryCatch { _ in replacement }.subscribe(catcher)
            upstream.send(completion: .failure(.boom))
            replacement.send(2)
            #expect(catcher.values == [2])
            weakUpstream = upstream
            weakReplacement = replacement
            weakInner = catcher.subscriptionObject
            catcher.cancel()
        }
        #expect(weakUpstream == nil)
        #expect(weakReplacement == nil)
        #expect(weakInner == nil)
    }
}
