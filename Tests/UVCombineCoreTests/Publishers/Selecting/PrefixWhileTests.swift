import Testing
import UVCombineCore
import UVCombineTesting

@Suite("prefix(while:) and tryPrefix(while:)")
struct PrefixWhileTests {
    // MARK: prefix(while:)

    @Test func publishesWhileThePredicateHoldsThenFinishes() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.prefix { $0 < 3 }.subscribe(tracker)
        upstream.send(1)
        upstream.send(2)
        #expect(upstream.send(3) == .none)
        #expect(upstream.subscription?.cancelCount == 1)
        upstream.send(0)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(PrefixWhile)", "value(1)", "value(2)", "finished"])
    }

    @Test func forwardsUpstreamCompletion() {
        let upstream = TestPublisher<Int, TestError>()
        let failed = TrackingSubscriber<Int, TestError>()
        upstream.prefix { _ in true }.subscribe(failed)
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(failed.history == ["subscription(PrefixWhile)", "value(1)", "failure(boom)"])
        let finished = TrackingSubscriber<Int, Never>()
        [1, 2].publisher.eraseToAnyPublisher().prefix { _ in true }.subscribe(finished)
        #expect(finished.history == ["subscription(PrefixWhile)", "value(1)", "value(2)", "finished"])
    }

    @Test func demandPassesThroughAndOneAtATimeGetsOnePerRequest() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .max(2), demandPerValue: { _ in .max(3) })
        upstream.prefix { $0 < 10 }.subscribe(tracker)
        #expect(upstream.subscription?.requested == [.max(2)])
        #expect(upstream.send(1) == .max(3))
        let stepped = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        (0..<10).publisher.eraseToAnyPublisher().prefix { $0 < 3 }.subscribe(stepped)
        #expect(stepped.values == [0])
        stepped.request(.max(1))
        #expect(stepped.values == [0, 1])
        stepped.request(.max(1))
        stepped.request(.max(1))
        #expect(stepped.history == ["subscription(PrefixWhile)", "value(0)", "value(1)", "value(2)", "finished"])
    }

    @Test func contract() {
        OperatorChecks.cancelReachesUpstream { $0.prefix { _ in true } }
        OperatorChecks.cancelReleasesTheChain { $0.prefix { _ in true } }
        OperatorChecks.completionReleasesTheChain { $0.prefix { $0 < 0 } }
        OperatorChecks.secondSubscriptionIsCancelled { $0.prefix { _ in true } }
    }

    // MARK: tryPrefix(while:)

    @Test func tryPrefixPublishesWhileThePredicateHolds() {
        let tracker = TrackingSubscriber<Int, any Error>()
        (1...5).publisher.tryPrefix { $0 < 3 }.subscribe(tracker)
        #expect(tracker.history == ["subscription(TryPrefixWhile)", "value(1)", "value(2)", "finished"])
    }

    @Test func tryPrefixThrowCancelsUpstreamAndFails() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, any Error>()
        upstream.tryPrefix { v in
            if v == 2 { throw TestError.other }
            return true
        }.subscribe(tracker)
        upstream.send(1)
        #expect(upstream.send(2) == .none)
        #expect(upstream.subscription?.cancelCount == 1)
        upstream.send(3)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(TryPrefixWhile)", "value(1)", "failure(other)"])
    }

    @Test func tryPrefixErasesUpstreamFailure() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, any Error>()
        upstream.tryPrefix { _ in true }.subscribe(tracker)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(TryPrefixWhile)", "failure(boom)"])
    }

    @Test func tryPrefixOneAtATime() {
        let paced = OneByOne<Int, any Error>()
        (0..<10).publisher.tryPrefix { $0 < 4 }.subscribe(paced)
        #expect(paced.values == [0, 1, 2, 3])
        #expect(paced.completion.map { if case .finished = $0 { true } else { false } } == true)
    }

    @Test func tryPrefixContract() {
        OperatorChecks.cancelReachesUpstream { $0.tryPrefix { _ in true } }
        OperatorChecks.cancelReleasesTheChain { $0.tryPrefix { _ in true } }
        OperatorChecks.secondSubscriptionIsCancelled { $0.tryPrefix { _ in true } }
    }
}
