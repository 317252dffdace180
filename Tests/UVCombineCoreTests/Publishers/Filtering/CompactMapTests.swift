import Testing
import UVCombineCore
import UVCombineTesting

@Suite("compactMap and tryCompactMap")
struct CompactMapTests {
    // MARK: compactMap

    @Test func compactMapDropsNilAndPassesTheSubscription() {
        let upstream = TestPublisher<String, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.compactMap { Int($0) }.subscribe(tracker)
        upstream.send("1")
        upstream.send("x")
        upstream.send("3")
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(TestSubscription)", "value(1)", "value(3)", "finished"])
    }

    @Test func compactMapForwardsFailure() {
        let upstream = TestPublisher<String, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.compactMap { Int($0) }.subscribe(tracker)
        upstream.send("2")
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(TestSubscription)", "value(2)", "failure(boom)"])
    }

    @Test func compactMapCompensatesDroppedElementsUpstream() {
        let upstream = TestPublisher<String, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        upstream.compactMap { Int($0) }.subscribe(tracker)
        #expect(upstream.subscription?.requested == [.max(1)])
        #expect(upstream.send("x") == .max(1))
        #expect(upstream.send("5") == .none)
        #expect(tracker.values == [5])
    }

    @Test func compactMapOneAtATimeGetsExactlyOnePerRequest() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        ["a", "1", "b", "c", "2", "3", "d"].publisher.eraseToAnyPublisher().compactMap { Int($0) }.subscribe(tracker)
        #expect(tracker.values == [1])
        tracker.request(.max(1))
        #expect(tracker.values == [1, 2])
        #expect(tracker.completion == nil)
        tracker.request(.max(1))
        #expect(tracker.values == [1, 2, 3])
        #expect(tracker.completion == nil)
        tracker.request(.max(1))
        #expect(tracker.history.last == "finished")
        #expect(tracker.values == [1, 2, 3])
    }

    @Test func compactMapCancelReachesUpstream() {
        let upstream = TestPublisher<String, Never>()
        let c = upstream.compactMap { Int($0) }.sink { _ in }
        c.cancel()
        #expect(upstream.subscription?.isCancelled == true)
    }

    @Test func compactMapCancelReleasesTheChain() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakTracker: TrackingSubscriber<Int, Never>?
        do {
            let tracker = TrackingSubscriber<Int, Never>()
            weakTracker = tracker
            subject.compactMap { $0 > 0 ? $0 : nil }.subscribe(tracker)
            subject.send(1)
            #expect(tracker.values == [1])
            tracker.cancel()
        }
        #expect(weakTracker == nil)
    }

    @Test func compactMapFusion() {
        let twice: Publishers.CompactMap<Publishers.Sequence<[String], Never>, Int> =
            ["1", "x", "-2", "3"].publisher.compactMap { Int($0) }.compactMap { $0 > 0 ? $0 * 10 : nil }
        let tracker = TrackingSubscriber<Int, Never>()
        twice.subscribe(tracker)
        #expect(tracker.values == [10, 30])

        let mapped: Publishers.CompactMap<Publishers.Sequence<[String], Never>, String> =
            ["1", "x"].publisher.compactMap { Int($0) }.map { "#\($0)" }
        let tracker2 = TrackingSubscriber<String, Never>()
        mapped.subscribe(tracker2)
        #expect(tracker2.values == ["#1"])
    }

    // MARK: tryCompactMap

    @Test func tryCompactMapDropsNilAndFinishes() {
        let tracker = TrackingSubscriber<Int, any Error>()
        ["1", "x", "3"].publisher.tryCompactMap { Int($0) }.subscribe(tracker)
        #expect(tracker.history == ["subscription(TryCompactMap)", "value(1)", "value(3)", "finished"])
    }

    @Test func tryCompactMapThrowCancelsUpstreamAndFailsOnce() {
        let upstream = TestPublisher<String, Never>()
        let tracker = TrackingSubscriber<Int, any Error>()
        upstream.tryCompactMap { s -> Int? in
            if s == "bad" { throw TestError.boom }
            return Int(s)
        }.subscribe(tracker)
        upstream.send("1")
        upstream.send("bad")
        #expect(upstream.subscription?.isCancelled == true)
        // A misbehaving upstream keeps sending: nothing gets through.
        upstream.send("2")
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(TryCompactMap)", "value(1)", "failure(boom)"])
    }

    @Test func tryCompactMapErasesUpstreamFailure() {
        let upstream = TestPublisher<String, TestError>()
        let tracker = TrackingSubscriber<Int, any Error>()
        upstream.tryCompactMap { Int($0) }.subscribe(tracker)
        upstream.send(completion: .failure(.other))
        #expect(tracker.history == ["subscription(TryCompactMap)", "failure(other)"])
    }

    @Test func tryCompactMapDemandAccounting() {
        let upstream = TestPublisher<String, Never>()
        let tracker = TrackingSubscriber<Int, any Error>(initialDemand: .max(1))
        upstream.tryCompactMap { Int($0) }.subscribe(tracker)
        #expect(upstream.send("x") == .max(1))
        #expect(upstream.send("4") == .none)
        tracker.request(.max(2))
        #expect(upstream.subscription?.requested == [.max(1), .max(2)])
    }

    @Test func tryCompactMapCancelReachesUpstreamAndStopsRequests() {
        let upstream = TestPublisher<String, Never>()
        let subscriber = ManualSubscriber<Int, any Error>()
        upstream.tryCompactMap { Int($0) }.subscribe(subscriber)
        subscriber.subscription?.request(.max(1))
        subscriber.subscription?.cancel()
        #expect(upstream.subscription?.isCancelled == true)
        subscriber.subscription?.request(.max(3))
        #expect(upstream.subscription?.requested == [.max(1)])
        // Cancel is idempotent and reaches upstream once.
        subscriber.subscription?.cancel()
        #expect(upstream.subscription?.cancelCount == 1)
    }

    @Test func tryCompactMapCancelReleasesTheChain() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakTracker: TrackingSubscriber<Int, any Error>?
        do {
            let tracker = TrackingSubscriber<Int, any Error>()
            weakTracker = tracker
            subject.tryCompactMap { $0 }.subscribe(tracker)
            subject.send(1)
            #expect(tracker.values == [1])
            tracker.cancel()
        }
        #expect(weakTracker == nil)
    }

    @Test func tryCompactMapFusion() {
        let fused: Publishers.TryCompactMap<Publishers.Sequence<[String], Never>, Int> =
            ["1", "x", "2"].publisher.tryCompactMap { Int($0) }.compactMap { v -> Int? in
                if v == 2 { throw TestError.other }
                return v * 10
            }
        let tracker = TrackingSubscriber<Int, any Error>()
        fused.subscribe(tracker)
        #expect(tracker.history == ["subscription(TryCompactMap)", "value(10)", "failure(other)"])
    }
}
