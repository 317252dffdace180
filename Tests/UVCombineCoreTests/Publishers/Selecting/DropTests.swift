import Testing
import UVCombineCore
import UVCombineTesting

@Suite("dropFirst(_:)")
struct DropTests {
    @Test func dropsTheFirstElements() {
        let tracker = TrackingSubscriber<Int, Never>()
        (1...6).publisher.eraseToAnyPublisher().dropFirst(4).subscribe(tracker)
        #expect(tracker.history == ["subscription(Drop)", "value(5)", "value(6)", "finished"])
        let one = TrackingSubscriber<Int, Never>()
        [1, 2].publisher.dropFirst().subscribe(one)
        #expect(one.values == [2])
    }

    @Test func theDroppedElementsAreRequestedOnTopOfTheFirstRequest() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .max(3), demandPerValue: { _ in .max(1) })
        upstream.dropFirst(2).subscribe(tracker)
        #expect(upstream.subscription?.requested == [.max(5)])
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .none)
        #expect(upstream.send(3) == .max(1))
        tracker.request(.max(2))
        #expect(upstream.subscription?.requested == [.max(5), .max(2)])
        #expect(tracker.values == [3])
    }

    @Test func withoutDemandTheDroppedElementsAreStillFetched() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        upstream.dropFirst(2).subscribe(tracker)
        #expect(upstream.subscription?.requested == [.max(2)])
        upstream.send(1)
        upstream.send(2)
        tracker.request(.max(1))
        #expect(upstream.subscription?.requested == [.max(2), .max(1)])
        upstream.send(3)
        #expect(tracker.values == [3])
    }

    @Test func dropFirstZeroPassesEverythingThrough() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        upstream.dropFirst(0).subscribe(tracker)
        #expect(upstream.subscription?.requested == [])
        tracker.request(.max(1))
        #expect(upstream.subscription?.requested == [.max(1)])
        upstream.send(7)
        #expect(tracker.values == [7])
    }

    @Test func forwardsCompletion() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.dropFirst(1).subscribe(tracker)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .failure(.boom))
        upstream.send(completion: .finished)
        // Combine's Drop forwards every completion it gets, also a second.
        #expect(tracker.history == ["subscription(Drop)", "value(2)", "failure(boom)", "finished"])
    }

    @Test func oneAtATimeGetsExactlyOnePerRequest() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        (1...5).publisher.eraseToAnyPublisher().dropFirst(2).subscribe(tracker)
        #expect(tracker.values == [3])
        tracker.request(.max(1))
        #expect(tracker.values == [3, 4])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(Drop)", "value(3)", "value(4)", "value(5)", "finished"])
        let paced = OneByOne<Int, Never>()
        (0..<100).publisher.dropFirst(90).subscribe(paced)
        #expect(paced.values == Array(90..<100))
    }

    @Test func negativeCountTrapsWhenSubscribing() async {
        await #expect(processExitsWith: .failure) {
            _ = Empty<Int, Never>().dropFirst(-1).sink { _ in }
        }
    }

    @Test func contract() {
        // Events after cancel are forwarded, as Combine does: see
        // ElementwiseOutOfOrderTests.eventsAfterCancel.
        OperatorChecks.cancelReleasesTheChain { $0.dropFirst(0) }
        OperatorChecks.completionReleasesTheChain { $0.dropFirst(1) }
        OperatorChecks.secondSubscriptionIsCancelled { $0.dropFirst() }
        #expect([1].publisher.dropFirst(2) == [1].publisher.dropFirst(2))
    }
}
