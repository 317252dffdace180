import Testing
import UVCombineCore
import UVCombineTesting

@Suite("min, max, min(by:), max(by:), tryMin(by:), tryMax(by:)")
struct ComparisonTests {
    @Test func minAndMaxAfterFinishing() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.min().subscribe(tracker)
        #expect(upstream.subscription?.requested == [.unlimited])
        upstream.send(3)
        upstream.send(1)
        upstream.send(2)
        #expect(tracker.history == ["subscription(Comparison)"])
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(Comparison)", "value(1)", "finished"])
        let max = TrackingSubscriber<Int, Never>()
        [3, 5, 1].publisher.max().subscribe(max)
        #expect(max.values == [5])
    }

    @Test func theFirstOfEqualElementsIsKept() {
        struct Tagged: CustomStringConvertible {
            let key: Int
            let tag: String
            var description: String { tag }
        }
        let items = [Tagged(key: 1, tag: "a"), Tagged(key: 0, tag: "b"), Tagged(key: 1, tag: "c"),
                     Tagged(key: 0, tag: "d")].publisher
        let max = TrackingSubscriber<Tagged, Never>()
        items.max { $0.key < $1.key }.subscribe(max)
        #expect(max.values.map(\.tag) == ["a"])
        let min = TrackingSubscriber<Tagged, Never>()
        items.min { $0.key < $1.key }.subscribe(min)
        #expect(min.values.map(\.tag) == ["b"])
    }

    @Test func byClosure() {
        let min = TrackingSubscriber<String, Never>()
        ["ccc", "a", "bb"].publisher.min { $0.count < $1.count }.subscribe(min)
        #expect(min.values == ["a"])
        let max = TrackingSubscriber<String, Never>()
        ["ccc", "a", "bb"].publisher.max { $0.count < $1.count }.subscribe(max)
        #expect(max.values == ["ccc"])
    }

    @Test func emptyFinishesEmptyOnTheFirstRequest() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        Empty<Int, Never>().max().subscribe(tracker)
        #expect(tracker.history == ["subscription(Comparison)"])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(Comparison)", "finished"])
    }

    @Test func theResultWaitsForDemandAndFailureIsForwarded() {
        let paced = OneByOne<Int, Never>()
        [4, 9, 2].publisher.max().subscribe(paced)
        #expect(paced.values == [9])
        #expect(paced.completion == .finished)
        let upstream = TestPublisher<Int, TestError>()
        let failed = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        upstream.min().subscribe(failed)
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(failed.history == ["subscription(Comparison)", "failure(boom)"])
    }

    @Test func tryMinAndTryMax() {
        let min = TrackingSubscriber<Int, any Error>()
        [3, 1, 2].publisher.tryMin { $0 < $1 }.subscribe(min)
        #expect(min.history == ["subscription(TryComparison)", "value(1)", "finished"])
        let max = TrackingSubscriber<Int, any Error>()
        [3, 1, 2].publisher.tryMax { $0 < $1 }.subscribe(max)
        #expect(max.history == ["subscription(TryComparison)", "value(3)", "finished"])
    }

    @Test func tryComparisonThrowCancelsUpstreamAndFails() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, any Error>(initialDemand: .none)
        upstream.tryMax { a, b in
            if b < 0 { throw TestError.other }
            return a < b
        }.subscribe(tracker)
        upstream.send(1)
        upstream.send(-1)
        #expect(upstream.subscription?.cancelCount == 1)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(TryComparison)", "failure(other)"])
        let failing = TestPublisher<Int, TestError>()
        let erased = TrackingSubscriber<Int, any Error>()
        failing.tryMin { $0 < $1 }.subscribe(erased)
        failing.send(completion: .failure(.boom))
        #expect(erased.history == ["subscription(TryComparison)", "failure(boom)"])
    }

    @Test func contract() {
        OperatorChecks.cancelReachesUpstream { $0.min() }
        OperatorChecks.cancelReachesUpstream { $0.tryMax { $0 < $1 } }
        OperatorChecks.cancelReleasesTheChain { $0.max() }
        OperatorChecks.cancelReleasesTheChain { $0.tryMin { $0 < $1 } }
        OperatorChecks.completionReleasesTheChain { $0.min() }
        OperatorChecks.secondSubscriptionIsCancelled { $0.max() }
        OperatorChecks.secondSubscriptionIsCancelled { $0.tryMax { $0 < $1 } }
    }
}
