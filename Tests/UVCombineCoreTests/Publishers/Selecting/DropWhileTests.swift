import Synchronization
import Testing
import UVCombineCore
import UVCombineTesting

@Suite("drop(while:) and tryDrop(while:)")
struct DropWhileTests {
    // MARK: drop(while:)

    @Test func dropsUntilThePredicateFailsThenPublishesEverything() {
        let calls = LockedCounter()
        let tracker = TrackingSubscriber<Int, Never>()
        [-1, -2, 3, -4, 5].publisher.eraseToAnyPublisher().drop { v in
            calls.increment()
            return v < 0
        }.subscribe(tracker)
        #expect(tracker.history == ["subscription(DropWhile)", "value(3)", "value(-4)", "value(5)", "finished"])
        // Not called again once it returned false.
        #expect(calls.value == 3)
    }

    @Test func droppedElementsAreCompensatedUpstream() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .max(1), demandPerValue: { _ in .max(2) })
        upstream.drop { $0 < 0 }.subscribe(tracker)
        #expect(upstream.send(-1) == .max(1))
        #expect(upstream.send(-2) == .max(1))
        #expect(upstream.send(1) == .max(2))
        #expect(upstream.send(-3) == .max(2))
        #expect(tracker.values == [1, -3])
    }

    @Test func forwardsFailure() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.drop { $0 < 0 }.subscribe(tracker)
        upstream.send(-1)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(DropWhile)", "failure(boom)"])
    }

    @Test func oneAtATimeGetsExactlyOnePerRequest() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        [0, 0, 0, 1, 2, 3].publisher.eraseToAnyPublisher().drop { $0 == 0 }.subscribe(tracker)
        #expect(tracker.values == [1])
        tracker.request(.max(1))
        #expect(tracker.values == [1, 2])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(DropWhile)", "value(1)", "value(2)", "value(3)", "finished"])
    }

    @Test func contract() {
        OperatorChecks.cancelReachesUpstream { $0.drop { _ in false } }
        OperatorChecks.cancelReleasesTheChain { $0.drop { _ in false } }
        OperatorChecks.completionReleasesTheChain { $0.drop { _ in true } }
        OperatorChecks.secondSubscriptionIsCancelled { $0.drop { _ in false } }
    }

    // MARK: tryDrop(while:)

    @Test func tryDropDropsThenPublishes() {
        let tracker = TrackingSubscriber<Int, any Error>()
        [0, 0, 1, 0].publisher.tryDrop { $0 == 0 }.subscribe(tracker)
        #expect(tracker.history == ["subscription(TryDropWhile)", "value(1)", "value(0)", "finished"])
    }

    @Test func tryDropThrowCancelsUpstreamAndFails() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, any Error>()
        upstream.tryDrop { v in
            if v == 2 { throw TestError.other }
            return true
        }.subscribe(tracker)
        #expect(upstream.send(1) == .max(1))
        #expect(upstream.send(2) == .none)
        #expect(upstream.subscription?.cancelCount == 1)
        upstream.send(3)
        #expect(tracker.history == ["subscription(TryDropWhile)", "failure(other)"])
    }

    @Test func tryDropErasesUpstreamFailureAndPacesOneByOne() {
        let upstream = TestPublisher<Int, TestError>()
        let failed = TrackingSubscriber<Int, any Error>()
        upstream.tryDrop { _ in true }.subscribe(failed)
        upstream.send(completion: .failure(.boom))
        #expect(failed.history == ["subscription(TryDropWhile)", "failure(boom)"])
        let paced = OneByOne<Int, any Error>()
        (0..<10).publisher.tryDrop { $0 < 7 }.subscribe(paced)
        #expect(paced.values == [7, 8, 9])
    }

    @Test func tryDropContract() {
        OperatorChecks.cancelReachesUpstream { $0.tryDrop { _ in false } }
        OperatorChecks.cancelReleasesTheChain { $0.tryDrop { _ in false } }
        OperatorChecks.secondSubscriptionIsCancelled { $0.tryDrop { _ in false } }
    }
}

/// A counter closures may bump from any thread.
final class LockedCounter: @unchecked Sendable {
    // @unchecked Sendable: the value is only touched under the mutex.
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
