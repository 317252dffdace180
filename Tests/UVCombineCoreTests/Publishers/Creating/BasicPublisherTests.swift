import Testing
import UVCombineCore
import UVCombineTesting

@Suite("Just, Empty, Fail, Result.Publisher, Sequence")
struct BasicPublisherTests {
    @Test func justDeliversOnFirstDemandThenFinishes() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        Just(7).subscribe(tracker)
        #expect(tracker.history == ["subscription(Just)"])
        tracker.request(.max(1))
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(Just)", "value(7)", "finished"])
    }

    @Test func justCancelledBeforeDemandSendsNothing() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        Just(7).subscribe(tracker)
        tracker.cancel()
        tracker.request(.max(1))
        #expect(tracker.values == [])
    }

    @Test func justMapFusesAndSetFailureType() {
        #expect(Just(2).map { $0 * 3 } == Just(6))
        let typed = Just(1).setFailureType(to: TestError.self)
        let tracker = TrackingSubscriber<Int, TestError>()
        typed.subscribe(tracker)
        #expect(tracker.values == [1])
    }

    @Test func emptyFinishesOrNot() {
        let a = TrackingSubscriber<Int, Never>()
        Empty<Int, Never>().subscribe(a)
        #expect(a.history == ["subscription(Empty)", "finished"])
        let b = TrackingSubscriber<Int, Never>()
        Empty<Int, Never>(completeImmediately: false).subscribe(b)
        #expect(b.history == ["subscription(Empty)"])
        #expect(Empty<Int, Never>() == Empty(completeImmediately: true, outputType: Int.self, failureType: Never.self))
    }

    @Test func failFailsImmediately() {
        let tracker = TrackingSubscriber<Int, TestError>()
        Fail<Int, TestError>(error: .boom).subscribe(tracker)
        #expect(tracker.history == ["subscription(Empty)", "failure(boom)"])
        let tracker2 = TrackingSubscriber<Int, TestError>()
        Fail(outputType: Int.self, failure: TestError.other).subscribe(tracker2)
        #expect(tracker2.completion == .failure(.other))
    }

    @Test func resultPublisher() {
        let ok = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        Result<Int, TestError>.success(3).publisher.subscribe(ok)
        #expect(ok.values == [])
        ok.request(.max(1))
        #expect(ok.history == ["subscription(Once)", "value(3)", "finished"])
        let bad = TrackingSubscriber<Int, TestError>()
        Result<Int, TestError>.failure(.boom).publisher.subscribe(bad)
        #expect(bad.history == ["subscription(Empty)", "failure(boom)"])
    }

    @Test func sequenceHonoursDemandOneAtATime() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        [1, 2, 3].publisher.subscribe(tracker)
        #expect(tracker.values == [1])
        tracker.request(.max(1))
        #expect(tracker.values == [1, 2])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription([1, 2, 3])", "value(1)", "value(2)", "value(3)", "finished"])
    }

    @Test func sequenceDemandFromReceiveKeepsGoingWithoutRecursion() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: { _ in .max(1) })
        (0..<100_000).publisher.subscribe(tracker)
        #expect(tracker.values.count == 100_000)
        #expect(tracker.completion == .finished)
    }

    @Test func emptySequenceFinishesAtSubscription() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        [Int]().publisher.subscribe(tracker)
        #expect(tracker.history == ["subscription(Empty)", "finished"])
    }

    @Test func sequenceCancelStopsIteration() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(2))
        [1, 2, 3].publisher.subscribe(tracker)
        tracker.cancel()
        tracker.request(.max(5))
        #expect(tracker.history == ["subscription([1, 2, 3])", "value(1)", "value(2)"])
    }

    @Test func sequenceCancelDuringLastValueSendsNoCompletion() {
        final class Box: @unchecked Sendable { var tracker: TrackingSubscriber<Int, Never>? }
        let box = Box()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .unlimited, onValue: { v in
            if v == 2 { box.tracker?.cancel() }
        })
        box.tracker = tracker
        [1, 2].publisher.subscribe(tracker)
        #expect(tracker.history == ["subscription([1, 2])", "value(1)", "value(2)"])
    }
}

@Suite("map and filter")
struct MapFilterTests {
    @Test func mapTransformsAndPassesSubscription() {
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<String, Never>(initialDemand: .max(2))
        upstream.map { "\($0)" }.subscribe(tracker)
        #expect(upstream.subscription?.requested == [.max(2)])
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(TestSubscription)", "value(1)", "finished"])
    }

    @Test func mapFusion() {
        let tracker = TrackingSubscriber<Int, Never>()
        [1, 2].publisher.map { $0 + 1 }.map { $0 * 10 }.subscribe(tracker)
        #expect(tracker.values == [20, 30])
    }

    @Test func mapCancelReachesUpstream() {
        let upstream = TestPublisher<Int, Never>()
        let c = upstream.map { $0 }.sink { _ in }
        c.cancel()
        #expect(upstream.subscription?.isCancelled == true)
    }

    @Test func filterCompensatesDemandForRejected() {
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        upstream.filter { $0 % 2 == 0 }.subscribe(tracker)
        #expect(upstream.send(1) == .max(1))
        #expect(upstream.send(2) == .none)
        #expect(tracker.values == [2])
    }

    @Test func filterDemandAccountingWithSequence() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(2))
        (1...10).publisher.filter { $0 % 3 == 0 }.subscribe(tracker)
        #expect(tracker.values == [3, 6])
        tracker.request(.max(1))
        #expect(tracker.values == [3, 6, 9])
        tracker.request(.max(1))
        #expect(tracker.completion == .finished)
    }

    @Test func filterFusion() {
        let tracker = TrackingSubscriber<Int, Never>()
        (1...10).publisher.filter { $0 > 3 }.filter { $0 < 6 }.subscribe(tracker)
        #expect(tracker.values == [4, 5])
    }
}
