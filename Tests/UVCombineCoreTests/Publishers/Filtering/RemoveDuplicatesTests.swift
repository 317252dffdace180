import Testing
import UVCombineCore
import UVCombineTesting

@Suite("removeDuplicates and tryRemoveDuplicates")
struct RemoveDuplicatesTests {
    @Test func dropsConsecutiveRepeats() {
        let tracker = TrackingSubscriber<Int, Never>()
        [1, 1, 2, 2, 2, 1, 3, 3].publisher.eraseToAnyPublisher().removeDuplicates().subscribe(tracker)
        #expect(tracker.history == ["subscription(RemoveDuplicates)", "value(1)", "value(2)", "value(1)", "value(3)",
                                    "finished"])
    }

    @Test func byPredicateComparesWithThePreviousElementEvenIfDropped() {
        let tracker = TrackingSubscriber<Int, Never>()
        // 1 -> 2 (diff 1: duplicate) -> 3 (diff 1 from 2: duplicate) -> 10
        [1, 2, 3, 10].publisher.removeDuplicates { abs($0 - $1) <= 1 }.subscribe(tracker)
        #expect(tracker.values == [1, 10])
    }

    @Test func repeatsAreCompensatedUpstream() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .max(1), demandPerValue: { _ in .max(2) })
        upstream.removeDuplicates().subscribe(tracker)
        #expect(upstream.send(1) == .max(2))
        #expect(upstream.send(1) == .max(1))
        #expect(upstream.send(2) == .max(2))
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(RemoveDuplicates)", "value(1)", "value(2)", "failure(boom)"])
    }

    @Test func oneAtATimeGetsExactlyOnePerRequest() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        [1, 1, 1, 2, 2, 3].publisher.eraseToAnyPublisher().removeDuplicates().subscribe(tracker)
        #expect(tracker.values == [1])
        tracker.request(.max(1))
        #expect(tracker.values == [1, 2])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(RemoveDuplicates)", "value(1)", "value(2)", "value(3)", "finished"])
    }

    @Test func tryRemoveDuplicates() {
        let tracker = TrackingSubscriber<Int, any Error>()
        [1, 1, 2].publisher.tryRemoveDuplicates { $0 == $1 }.subscribe(tracker)
        #expect(tracker.history == ["subscription(TryRemoveDuplicates)", "value(1)", "value(2)", "finished"])
    }

    @Test func tryRemoveDuplicatesThrowCancelsUpstreamAndFails() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, any Error>()
        upstream.tryRemoveDuplicates { _, b in
            if b < 0 { throw TestError.other }
            return false
        }.subscribe(tracker)
        upstream.send(1)
        #expect(upstream.send(-1) == .none)
        #expect(upstream.subscription?.cancelCount == 1)
        upstream.send(2)
        #expect(tracker.history == ["subscription(TryRemoveDuplicates)", "value(1)", "failure(other)"])
        let failing = TestPublisher<Int, TestError>()
        let erased = TrackingSubscriber<Int, any Error>()
        failing.tryRemoveDuplicates { $0 == $1 }.subscribe(erased)
        failing.send(completion: .failure(.boom))
        #expect(erased.history == ["subscription(TryRemoveDuplicates)", "failure(boom)"])
    }

    @Test func contract() {
        OperatorChecks.cancelReachesUpstream { $0.removeDuplicates() }
        OperatorChecks.cancelReachesUpstream { $0.tryRemoveDuplicates { $0 == $1 } }
        OperatorChecks.cancelReleasesTheChain { $0.removeDuplicates() }
        OperatorChecks.cancelReleasesTheChain { $0.tryRemoveDuplicates { $0 == $1 } }
        OperatorChecks.completionReleasesTheChain { $0.removeDuplicates() }
        OperatorChecks.secondSubscriptionIsCancelled { $0.removeDuplicates() }
        OperatorChecks.secondSubscriptionIsCancelled { $0.tryRemoveDuplicates { $0 == $1 } }
    }
}
