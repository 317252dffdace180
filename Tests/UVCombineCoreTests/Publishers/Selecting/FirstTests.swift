import Testing
import UVCombineCore
import UVCombineTesting

@Suite("first(), first(where:), tryFirst(where:)")
struct FirstTests {
    // MARK: first()

    @Test func requestsUnlimitedAfterTheSubscriptionAndCancelsOnTheFirstElement() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .max(1))
        upstream.first().subscribe(tracker)
        #expect(upstream.subscription?.requested == [.unlimited])
        #expect(upstream.send(5) == .none)
        #expect(upstream.subscription?.cancelCount == 1)
        upstream.send(6)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(First)", "value(5)", "finished"])
    }

    @Test func theElementWaitsForDemand() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        upstream.first().subscribe(tracker)
        #expect(upstream.subscription?.requested == [.unlimited])
        upstream.send(5)
        #expect(upstream.subscription?.isCancelled == true)
        #expect(tracker.history == ["subscription(First)"])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(First)", "value(5)", "finished"])
        tracker.request(.max(1))
        #expect(tracker.completionCount == 1)
    }

    @Test func emptyUpstreamFinishesOnTheFirstRequest() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        upstream.first().subscribe(tracker)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(First)"])
        tracker.request(.max(3))
        #expect(tracker.history == ["subscription(First)", "finished"])
    }

    @Test func failureIsDeliveredWithoutDemand() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        upstream.first().subscribe(tracker)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(First)", "failure(boom)"])
    }

    @Test func contract() {
        OperatorChecks.cancelReachesUpstream { $0.first() }
        OperatorChecks.cancelReleasesTheChain { $0.first { _ in false } }
        OperatorChecks.completionReleasesTheChain { $0.first() }
        OperatorChecks.secondSubscriptionIsCancelled { $0.first() }
        #expect([1].publisher.first() == [1].publisher.first())
    }

    // MARK: first(where:)

    @Test func firstWherePublishesTheFirstMatch() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.first { $0 > 2 }.subscribe(tracker)
        #expect(upstream.send(1) == .none)
        #expect(upstream.subscription?.isCancelled == false)
        upstream.send(3)
        #expect(upstream.subscription?.cancelCount == 1)
        upstream.send(4)
        // Combine names this subscription "TryFirst".
        #expect(tracker.history == ["subscription(TryFirst)", "value(3)", "finished"])
    }

    @Test func firstWhereWithoutMatchFinishesEmpty() {
        let tracker = TrackingSubscriber<Int, Never>()
        [1, 2].publisher.eraseToAnyPublisher().first { $0 > 5 }.subscribe(tracker)
        #expect(tracker.history == ["subscription(TryFirst)", "finished"])
    }

    @Test func firstWhereOneAtATime() {
        let paced = OneByOne<Int, Never>()
        (0..<10).publisher.first { $0 == 4 }.subscribe(paced)
        #expect(paced.values == [4])
        #expect(paced.completion == .finished)
    }

    // MARK: tryFirst(where:)

    @Test func tryFirstPublishesTheFirstMatch() {
        let tracker = TrackingSubscriber<Int, any Error>()
        [1, 2, 3, 4].publisher.tryFirst { $0 % 2 == 0 }.subscribe(tracker)
        #expect(tracker.history == ["subscription(TryFirstWhere)", "value(2)", "finished"])
    }

    @Test func tryFirstThrowCancelsUpstreamAndFailsWithoutDemand() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, any Error>(initialDemand: .none)
        upstream.tryFirst { v in
            if v == 2 { throw TestError.other }
            return false
        }.subscribe(tracker)
        upstream.send(1)
        upstream.send(2)
        #expect(upstream.subscription?.cancelCount == 1)
        upstream.send(3)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(TryFirstWhere)", "failure(other)"])
    }

    @Test func tryFirstErasesUpstreamFailure() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, any Error>()
        upstream.tryFirst { _ in false }.subscribe(tracker)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(TryFirstWhere)", "failure(boom)"])
    }

    @Test func tryFirstContract() {
        OperatorChecks.cancelReachesUpstream { $0.tryFirst { _ in false } }
        OperatorChecks.cancelReleasesTheChain { $0.tryFirst { _ in false } }
        OperatorChecks.secondSubscriptionIsCancelled { $0.tryFirst { _ in false } }
    }
}
