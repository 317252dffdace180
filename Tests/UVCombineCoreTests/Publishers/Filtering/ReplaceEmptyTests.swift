import Testing
import UVCombineCore
import UVCombineTesting

@Suite("replaceEmpty")
struct ReplaceEmptyTests {
    @Test func emptyStreamPublishesTheReplacement() {
        let tracker = TrackingSubscriber<Int, Never>()
        Empty<Int, Never>().replaceEmpty(with: 42).subscribe(tracker)
        #expect(tracker.history == ["subscription(ReplaceEmpty)", "value(42)", "finished"])
    }

    @Test func valuesPassUnchangedAndDemandIsForwardedAfterUnlimited() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .max(1), demandPerValue: { _ in .max(2) })
        upstream.replaceEmpty(with: 0).subscribe(tracker)
        // As Combine: `.unlimited` once the downstream has the subscription,
        // on top of what the downstream requests.
        #expect(upstream.subscription?.requested == [.max(1), .unlimited])
        #expect(upstream.send(5) == .max(2))
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(ReplaceEmpty)", "value(5)", "finished"])
    }

    @Test func failureIsForwardedEvenWhenEmpty() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        upstream.replaceEmpty(with: 0).subscribe(tracker)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(ReplaceEmpty)", "failure(boom)"])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(ReplaceEmpty)", "failure(boom)"])
    }

    @Test func theReplacementWaitsForDemand() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        upstream.replaceEmpty(with: 7).subscribe(tracker)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(ReplaceEmpty)"])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(ReplaceEmpty)", "value(7)", "finished"])
        // The owed request is not forwarded to the finished upstream.
        #expect(upstream.subscription?.requested == [.unlimited])
        tracker.request(.max(1))
        #expect(tracker.completionCount == 1)
    }

    @Test func theUpstreamIsAskedForEverythingAsInCombine() {
        // Combine's replaceEmpty requests `.unlimited` from its upstream, so
        // a synchronous upstream sends everything whatever the downstream
        // asked for.
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        [1, 2].publisher.replaceEmpty(with: 0).subscribe(tracker)
        #expect(tracker.history == ["subscription(ReplaceEmpty)", "value(1)", "value(2)", "finished"])
        let paced = OneByOne<Int, Never>()
        Empty<Int, Never>().replaceEmpty(with: 3).subscribe(paced)
        #expect(paced.values == [3])
    }

    @Test func cancelWhileTheReplacementIsOwedDeliversNothing() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = ManualSubscriber<Int, TestError>()
        upstream.replaceEmpty(with: 0).subscribe(subscriber)
        upstream.send(completion: .finished)
        subscriber.subscription?.cancel()
        subscriber.subscription?.request(.max(1))
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completions.isEmpty)
    }

    @Test func contract() {
        OperatorChecks.cancelReachesUpstream { $0.replaceEmpty(with: 0) }
        OperatorChecks.cancelReleasesTheChain { $0.replaceEmpty(with: 0) }
        OperatorChecks.completionReleasesTheChain { $0.replaceEmpty(with: 0) }
        OperatorChecks.secondSubscriptionIsCancelled { $0.replaceEmpty(with: 0) }
    }
}
