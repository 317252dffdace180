import Testing
import UVCombineCore
import UVCombineTesting

@Suite("collect() and collect(_:)")
struct CollectTests {
    // MARK: collect()

    @Test func collectsEverythingAndPublishesOnFinish() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<[Int], TestError>()
        upstream.collect().subscribe(tracker)
        #expect(upstream.subscription?.requested == [.unlimited])
        upstream.send(1)
        upstream.send(2)
        #expect(tracker.history == ["subscription(Collect)"])
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(Collect)", "value([1, 2])", "finished"])
    }

    @Test func emptyPublishesAnEmptyArray() {
        let tracker = TrackingSubscriber<[Int], Never>()
        Empty<Int, Never>().collect().subscribe(tracker)
        #expect(tracker.history == ["subscription(Collect)", "value([])", "finished"])
    }

    @Test func theArrayWaitsForDemandAndFailureDiscardsIt() {
        let upstream = TestPublisher<Int, TestError>()
        let waiting = TrackingSubscriber<[Int], TestError>(initialDemand: .none)
        upstream.collect().subscribe(waiting)
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(waiting.history == ["subscription(Collect)"])
        waiting.request(.max(1))
        #expect(waiting.history == ["subscription(Collect)", "value([1])", "finished"])

        let failing = TestPublisher<Int, TestError>()
        let failed = TrackingSubscriber<[Int], TestError>(initialDemand: .none)
        failing.collect().subscribe(failed)
        failing.send(1)
        failing.send(completion: .failure(.boom))
        #expect(failed.history == ["subscription(Collect)", "failure(boom)"])
    }

    @Test func collectContract() {
        OperatorChecks.cancelReachesUpstream { $0.collect() }
        OperatorChecks.cancelReleasesTheChain { $0.collect() }
        OperatorChecks.completionReleasesTheChain { $0.collect() }
        OperatorChecks.secondSubscriptionIsCancelled { $0.collect() }
    }

    // MARK: collect(_:)

    @Test func collectsByCountWithAPartialLastArray() {
        let tracker = TrackingSubscriber<[Int], Never>()
        (1...5).publisher.collect(2).subscribe(tracker)
        #expect(tracker.history == ["subscription(CollectByCount)", "value([1, 2])", "value([3, 4])", "value([5])",
                                    "finished"])
    }

    @Test func demandIsScaledByTheCount() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<[Int], TestError>(initialDemand: .max(2), demandPerValue: { _ in .max(1) })
        upstream.collect(3).subscribe(tracker)
        #expect(upstream.subscription?.requested == [.max(6)])
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .none)
        #expect(upstream.send(3) == .max(3))
        tracker.request(.unlimited)
        #expect(upstream.subscription?.requested == [.max(6), .unlimited])
    }

    @Test func failureDiscardsThePartialArray() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<[Int], TestError>()
        upstream.collect(2).subscribe(tracker)
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(CollectByCount)", "value([1, 2])", "failure(boom)"])
    }

    @Test func oneArrayAtATimeGetsExactlyOnePerRequest() {
        let tracker = TrackingSubscriber<[Int], Never>(initialDemand: .max(1))
        (1...7).publisher.collect(3).subscribe(tracker)
        #expect(tracker.values == [[1, 2, 3]])
        tracker.request(.max(1))
        #expect(tracker.values == [[1, 2, 3], [4, 5, 6]])
        tracker.request(.max(1))
        #expect(tracker.values == [[1, 2, 3], [4, 5, 6], [7]])
        #expect(tracker.completion == .finished)
        let paced = OneByOne<[Int], Never>()
        (0..<10).publisher.collect(5).subscribe(paced)
        #expect(paced.values == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]])
    }

    @Test func countBelowOneTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = [1].publisher.collect(0).sink { _ in }
        }
    }

    @Test func collectByCountContract() {
        OperatorChecks.cancelReachesUpstream { $0.collect(2) }
        OperatorChecks.cancelReleasesTheChain { $0.collect(2) }
        OperatorChecks.completionReleasesTheChain { $0.collect(2) }
        OperatorChecks.secondSubscriptionIsCancelled { $0.collect(2) }
    }
}
