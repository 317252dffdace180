import Testing
import UVCombineCore
import UVCombineTesting

@Suite("contains, contains(where:), tryContains(where:), allSatisfy, tryAllSatisfy")
struct MatchingTests {
    // MARK: contains

    @Test func containsCancelsUpstreamOnTheFirstMatch() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Bool, TestError>()
        upstream.contains(3).subscribe(tracker)
        #expect(upstream.subscription?.requested == [.unlimited])
        upstream.send(1)
        #expect(upstream.subscription?.isCancelled == false)
        upstream.send(3)
        #expect(upstream.subscription?.cancelCount == 1)
        upstream.send(3)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(Contains)", "value(true)", "finished"])
    }

    @Test func containsPublishesFalseOnFinishWithoutMatch() {
        let tracker = TrackingSubscriber<Bool, Never>()
        [1, 2].publisher.eraseToAnyPublisher().contains(5).subscribe(tracker)
        #expect(tracker.history == ["subscription(Contains)", "value(false)", "finished"])
    }

    @Test func theAnswerWaitsForDemand() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Bool, TestError>(initialDemand: .none)
        upstream.contains(1).subscribe(tracker)
        upstream.send(1)
        #expect(upstream.subscription?.isCancelled == true)
        #expect(tracker.history == ["subscription(Contains)"])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(Contains)", "value(true)", "finished"])
    }

    @Test func containsForwardsFailure() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Bool, TestError>()
        upstream.contains(1).subscribe(tracker)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(Contains)", "failure(boom)"])
    }

    @Test func containsWhere() {
        let tracker = TrackingSubscriber<Bool, Never>()
        [1, 3, 4, 5].publisher.eraseToAnyPublisher().contains { $0 % 2 == 0 }.subscribe(tracker)
        #expect(tracker.history == ["subscription(ContainsWhere)", "value(true)", "finished"])
        let none = OneByOne<Bool, Never>()
        [1, 3].publisher.contains { $0 % 2 == 0 }.subscribe(none)
        #expect(none.values == [false])
        #expect(none.completion == .finished)
    }

    @Test func tryContains() {
        let found = TrackingSubscriber<Bool, any Error>()
        [1, 2].publisher.eraseToAnyPublisher().tryContains { $0 == 2 }.subscribe(found)
        #expect(found.history == ["subscription(TryContainsWhere)", "value(true)", "finished"])
        let upstream = TestPublisher<Int, TestError>()
        let thrown = TrackingSubscriber<Bool, any Error>(initialDemand: .none)
        upstream.tryContains { v in
            if v < 0 { throw TestError.other }
            return false
        }.subscribe(thrown)
        upstream.send(1)
        upstream.send(-1)
        #expect(upstream.subscription?.cancelCount == 1)
        upstream.send(completion: .finished)
        #expect(thrown.history == ["subscription(TryContainsWhere)", "failure(other)"])
        let failing = TestPublisher<Int, TestError>()
        let erased = TrackingSubscriber<Bool, any Error>()
        failing.tryContains { _ in false }.subscribe(erased)
        failing.send(completion: .failure(.boom))
        #expect(erased.history == ["subscription(TryContainsWhere)", "failure(boom)"])
    }

    // MARK: allSatisfy

    @Test func allSatisfyCancelsOnTheFirstFailingElement() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Bool, TestError>()
        upstream.allSatisfy { $0 > 0 }.subscribe(tracker)
        #expect(upstream.subscription?.requested == [.unlimited])
        upstream.send(1)
        upstream.send(-1)
        #expect(upstream.subscription?.cancelCount == 1)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(AllSatisfy)", "value(false)", "finished"])
    }

    @Test func allSatisfyIsTrueForAllAndForEmpty() {
        let all = TrackingSubscriber<Bool, Never>()
        [2, 4].publisher.eraseToAnyPublisher().allSatisfy { $0 % 2 == 0 }.subscribe(all)
        #expect(all.history == ["subscription(AllSatisfy)", "value(true)", "finished"])
        let empty = OneByOne<Bool, Never>()
        Empty<Int, Never>().allSatisfy { _ in false }.subscribe(empty)
        #expect(empty.values == [true])
    }

    @Test func tryAllSatisfy() {
        let ok = TrackingSubscriber<Bool, any Error>()
        [2, 4].publisher.eraseToAnyPublisher().tryAllSatisfy { $0 % 2 == 0 }.subscribe(ok)
        #expect(ok.history == ["subscription(TryAllSatisfy)", "value(true)", "finished"])
        let upstream = TestPublisher<Int, TestError>()
        let thrown = TrackingSubscriber<Bool, any Error>()
        upstream.tryAllSatisfy { v in
            if v < 0 { throw TestError.other }
            return true
        }.subscribe(thrown)
        upstream.send(-1)
        #expect(upstream.subscription?.cancelCount == 1)
        #expect(thrown.history == ["subscription(TryAllSatisfy)", "failure(other)"])
    }

    @Test func contract() {
        OperatorChecks.cancelReachesUpstream { $0.contains(100) }
        OperatorChecks.cancelReachesUpstream { $0.contains { _ in false } }
        OperatorChecks.cancelReachesUpstream { $0.tryContains { _ in false } }
        OperatorChecks.cancelReachesUpstream { $0.allSatisfy { _ in true } }
        OperatorChecks.cancelReachesUpstream { $0.tryAllSatisfy { _ in true } }
        OperatorChecks.cancelReleasesTheChain { $0.contains(100) }
        OperatorChecks.cancelReleasesTheChain { $0.contains { _ in false } }
        OperatorChecks.cancelReleasesTheChain { $0.tryContains { _ in false } }
        OperatorChecks.cancelReleasesTheChain { $0.allSatisfy { _ in true } }
        OperatorChecks.cancelReleasesTheChain { $0.tryAllSatisfy { _ in true } }
        OperatorChecks.completionReleasesTheChain { $0.contains(1) }
        OperatorChecks.completionReleasesTheChain { $0.allSatisfy { _ in true } }
        OperatorChecks.secondSubscriptionIsCancelled { $0.contains(1) }
        OperatorChecks.secondSubscriptionIsCancelled { $0.allSatisfy { _ in true } }
        #expect([1].publisher.contains(1) == [1].publisher.contains(1))
    }
}
