import Testing
import UVCombineCore
import UVCombineTesting

@Suite("scan and tryScan")
struct ScanTests {
    // MARK: scan

    @Test func publishesEveryPartialResult() {
        let tracker = TrackingSubscriber<Int, Never>()
        [1, 2, 3].publisher.scan(0) { $0 + $1 }.subscribe(tracker)
        #expect(tracker.history == ["subscription([1, 3, 6])", "value(1)", "value(3)", "value(6)", "finished"])
    }

    @Test func eachSubscriptionStartsFromTheInitialResult() {
        let scan = [1, 2].publisher.scan(10) { $0 + $1 }
        let a = TrackingSubscriber<Int, Never>()
        let b = TrackingSubscriber<Int, Never>()
        scan.subscribe(a)
        scan.subscribe(b)
        #expect(a.values == [11, 13])
        #expect(b.values == [11, 13])
    }

    @Test func forwardsFailure() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<[Int], TestError>()
        upstream.scan([]) { $0 + [$1] }.subscribe(tracker)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(TestSubscription)", "value([1])", "value([1, 2])", "failure(boom)"])
    }

    @Test func oneAtATimeGetsExactlyOnePerRequest() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        [1, 2, 3].publisher.scan(0) { $0 + $1 }.subscribe(tracker)
        #expect(tracker.values == [1])
        tracker.request(.max(1))
        #expect(tracker.values == [1, 3])
        tracker.request(.max(1))
        #expect(tracker.values == [1, 3, 6])
        #expect(tracker.completion == .finished)
    }

    @Test func demandPassesThrough() {
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(2), demandPerValue: { _ in .max(1) })
        upstream.scan(0) { $0 + $1 }.subscribe(tracker)
        #expect(upstream.subscription?.requested == [.max(2)])
        #expect(upstream.send(5) == .max(1))
    }

    @Test func cancelReachesUpstream() {
        let upstream = TestPublisher<Int, Never>()
        let c = upstream.scan(0) { $0 + $1 }.sink { _ in }
        c.cancel()
        #expect(upstream.subscription?.isCancelled == true)
    }

    @Test func cancelReleasesTheChain() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakTracker: TrackingSubscriber<Int, Never>?
        do {
            let tracker = TrackingSubscriber<Int, Never>()
            weakTracker = tracker
            subject.scan(0) { $0 + $1 }.subscribe(tracker)
            subject.send(4)
            #expect(tracker.values == [4])
            tracker.cancel()
        }
        #expect(weakTracker == nil)
    }

    @Test func justScanIsAppliedAtOnce() {
        #expect(Just(2).scan(10) { $0 + $1 } == Result<Int, Never>.Publisher(12))
    }

    // MARK: tryScan

    @Test func tryScanPublishesPartialResultsAndFinishes() {
        let tracker = TrackingSubscriber<Int, any Error>()
        [1, 2, 3].publisher.tryScan(0) { $0 + $1 }.subscribe(tracker)
        #expect(tracker.history == ["subscription(TryScan)", "value(1)", "value(3)", "value(6)", "finished"])
    }

    @Test func tryScanThrowCancelsUpstreamAndFailsOnce() {
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, any Error>()
        upstream.tryScan(0) { sum, v in
            guard sum + v < 5 else { throw TestError.other }
            return sum + v
        }.subscribe(tracker)
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        #expect(upstream.subscription?.cancelCount == 1)
        upstream.send(0)
        upstream.send(completion: .finished)
        // As Combine's tryScan: a value the upstream still sends is
        // forwarded; a completion is not.
        #expect(tracker.history == ["subscription(TryScan)", "value(1)", "value(3)", "failure(other)", "value(3)"])
    }

    @Test func tryScanErasesUpstreamFailure() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, any Error>()
        upstream.tryScan(0) { $0 + $1 }.subscribe(tracker)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(TryScan)", "failure(boom)"])
    }

    @Test func tryScanOneAtATimeGetsExactlyOnePerRequest() {
        let tracker = TrackingSubscriber<Int, any Error>(initialDemand: .max(1))
        [1, 2, 3].publisher.tryScan(0) { $0 + $1 }.subscribe(tracker)
        #expect(tracker.values == [1])
        tracker.request(.max(1))
        #expect(tracker.values == [1, 3])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(TryScan)", "value(1)", "value(3)", "value(6)", "finished"])
    }

    @Test func tryScanCancelReachesUpstreamOnceAndStopsRequests() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = ManualSubscriber<Int, any Error>()
        upstream.tryScan(0) { $0 + $1 }.subscribe(subscriber)
        subscriber.subscription?.request(.max(2))
        subscriber.subscription?.cancel()
        subscriber.subscription?.cancel()
        subscriber.subscription?.request(.max(1))
        #expect(upstream.subscription?.requested == [.max(2)])
        #expect(upstream.subscription?.cancelCount == 1)
        upstream.send(1)
        // Forwarded even after the cancel, as Combine's tryScan does.
        #expect(subscriber.values == [1])
    }

    @Test func tryScanCancelReleasesTheChain() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakTracker: TrackingSubscriber<Int, any Error>?
        do {
            let tracker = TrackingSubscriber<Int, any Error>()
            weakTracker = tracker
            subject.tryScan(0) { $0 + $1 }.subscribe(tracker)
            subject.send(4)
            #expect(tracker.values == [4])
            tracker.cancel()
        }
        #expect(weakTracker == nil)
    }

    @Test func justTryScanIsAppliedAtOnce() throws {
        #expect(try Just(2).tryScan(10) { $0 + $1 }.result.get() == 12)
        let bad = Just(2).tryScan(10) { _, _ -> Int in throw TestError.boom }
        #expect(throws: TestError.boom) { try bad.result.get() }
    }
}
