import Testing
import UVCombineCore
import UVCombineTesting

@Suite("last(), last(where:), tryLast(where:)")
struct LastTests {
    @Test func publishesTheLastElementAfterFinishing() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.last().subscribe(tracker)
        #expect(upstream.subscription?.requested == [.unlimited])
        upstream.send(1)
        upstream.send(2)
        #expect(tracker.history == ["subscription(Last)"])
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(Last)", "value(2)", "finished"])
    }

    @Test func theElementWaitsForDemand() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        upstream.last().subscribe(tracker)
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(Last)"])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(Last)", "value(1)", "finished"])
    }

    @Test func failureDiscardsTheElement() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        upstream.last().subscribe(tracker)
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(Last)", "failure(boom)"])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(Last)", "failure(boom)"])
    }

    @Test func emptyFinishesEmpty() {
        let tracker = TrackingSubscriber<Int, Never>()
        Empty<Int, Never>().last().subscribe(tracker)
        #expect(tracker.history == ["subscription(Last)", "finished"])
    }

    @Test func lastWhereKeepsTheLastMatch() {
        let tracker = TrackingSubscriber<Int, Never>()
        [2, 4, 5].publisher.eraseToAnyPublisher().last { $0 % 2 == 0 }.subscribe(tracker)
        #expect(tracker.history == ["subscription(LastWhere)", "value(4)", "finished"])
        let paced = OneByOne<Int, Never>()
        (0..<10).publisher.last { $0 < 3 }.subscribe(paced)
        #expect(paced.values == [2])
    }

    @Test func tryLastThrowCancelsUpstreamAndFails() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, any Error>()
        upstream.tryLast { v in
            if v == 3 { throw TestError.other }
            return true
        }.subscribe(tracker)
        upstream.send(1)
        upstream.send(3)
        #expect(upstream.subscription?.cancelCount == 1)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(TryLastWhere)", "failure(other)"])
        let ok = TrackingSubscriber<Int, any Error>()
        [1, 2, 3].publisher.tryLast { $0 < 3 }.subscribe(ok)
        #expect(ok.history == ["subscription(TryLastWhere)", "value(2)", "finished"])
        let erased = TrackingSubscriber<Int, any Error>()
        let failing = TestPublisher<Int, TestError>()
        failing.tryLast { _ in true }.subscribe(erased)
        failing.send(completion: .failure(.boom))
        #expect(erased.history == ["subscription(TryLastWhere)", "failure(boom)"])
    }

    @Test func contract() {
        OperatorChecks.cancelReachesUpstream { $0.last() }
        OperatorChecks.cancelReachesUpstream { $0.last { _ in true } }
        OperatorChecks.cancelReachesUpstream { $0.tryLast { _ in true } }
        OperatorChecks.cancelReleasesTheChain { $0.last() }
        OperatorChecks.cancelReleasesTheChain { $0.tryLast { _ in true } }
        OperatorChecks.completionReleasesTheChain { $0.last { _ in true } }
        OperatorChecks.secondSubscriptionIsCancelled { $0.last() }
    }
}
