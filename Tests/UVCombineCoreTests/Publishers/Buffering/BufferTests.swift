import Testing
import UVCombineCore
import UVCombineTesting

@Suite("buffer(size:prefetch:whenFull:)")
struct BufferTests {
    @Test func keepFullPrefetchesTheSizeAndRefillsPerDeliveredElement() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        upstream.buffer(size: 3, prefetch: .keepFull, whenFull: .dropNewest).subscribe(tracker)
        #expect(tracker.history == ["subscription(Buffer)"])
        #expect(upstream.subscription?.requested == [.max(3)])
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .none)
        #expect(upstream.send(3) == .none)
        tracker.request(.max(2))
        #expect(tracker.values == [1, 2])
        #expect(upstream.subscription?.requested == [.max(3), .max(2)])
        tracker.request(.max(2))
        #expect(tracker.values == [1, 2, 3])
        #expect(upstream.subscription?.requested == [.max(3), .max(2), .max(1)])
        // One unit of demand is outstanding: the next element goes straight
        // through and is refilled at once.
        #expect(upstream.send(4) == .max(1))
        #expect(tracker.values == [1, 2, 3, 4])
    }

    @Test func byRequestAsksForEverythingAndDropNewestKeepsTheOldest() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        upstream.buffer(size: 3, prefetch: .byRequest, whenFull: .dropNewest).subscribe(tracker)
        #expect(upstream.subscription?.requested == [.unlimited])
        for i in 1...5 { #expect(upstream.send(i) == .none) }
        tracker.request(.max(4))
        #expect(tracker.values == [1, 2, 3])
        upstream.send(6)
        #expect(tracker.values == [1, 2, 3, 6])
        #expect(upstream.subscription?.requested == [.unlimited])
    }

    @Test func dropOldestKeepsTheNewest() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        upstream.buffer(size: 3, prefetch: .byRequest, whenFull: .dropOldest).subscribe(tracker)
        for i in 1...5 { upstream.send(i) }
        tracker.request(.max(3))
        #expect(tracker.values == [3, 4, 5])
    }

    @Test func customErrorCancelsUpstreamAndFailsOnTheNextRequestAfterTheBuffer() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        upstream.buffer(size: 2, prefetch: .byRequest, whenFull: .customError { .other }).subscribe(tracker)
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        #expect(upstream.subscription?.cancelCount == 1)
        upstream.send(4)
        #expect(tracker.history == ["subscription(Buffer)"])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(Buffer)", "value(1)", "failure(other)"])
        tracker.request(.max(1))
        #expect(tracker.completionCount == 1)
    }

    @Test func finishedFollowsTheLastBufferedElement() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        upstream.buffer(size: 5, prefetch: .keepFull, whenFull: .dropNewest).subscribe(tracker)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(Buffer)"])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(Buffer)", "value(1)"])
        // As Combine, `.keepFull` refills through the subscription it holds,
        // although that upstream has finished (and ignores it).
        #expect(upstream.subscription?.requested == [.max(5), .max(1)])
        tracker.request(.max(1))
        // As Combine: `.finished` waits for demand even behind an empty buffer.
        #expect(tracker.history == ["subscription(Buffer)", "value(1)", "value(2)"])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(Buffer)", "value(1)", "value(2)", "finished"])
    }

    @Test func failureGoesAfterWhatTheDemandAllowsAndDiscardsTheRest() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        upstream.buffer(size: 5, prefetch: .byRequest, whenFull: .dropNewest).subscribe(tracker)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(Buffer)", "failure(boom)"])
        tracker.request(.max(5))
        #expect(tracker.history == ["subscription(Buffer)", "failure(boom)"])
    }

    @Test func oneAtATimeGetsExactlyOnePerRequest() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        (1...5).publisher.buffer(size: 2, prefetch: .keepFull, whenFull: .dropNewest).subscribe(tracker)
        #expect(tracker.values == [1])
        tracker.request(.max(1))
        #expect(tracker.values == [1, 2])
        tracker.request(.max(3))
        #expect(tracker.history == ["subscription(Buffer)", "value(1)", "value(2)", "value(3)", "value(4)", "value(5)"])
        tracker.request(.max(1))
        #expect(tracker.history.last == "finished")
        let paced = OneByOne<Int, Never>()
        (0..<100).publisher.buffer(size: 4, prefetch: .keepFull, whenFull: .dropOldest).subscribe(paced)
        #expect(paced.values == Array(0..<100))
        #expect(paced.completion == .finished)
    }

    @Test func neverMoreThanRequested() {
        let subject = PassthroughSubject<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(2))
        subject.buffer(size: 10, prefetch: .byRequest, whenFull: .dropNewest).subscribe(tracker)
        for i in 0..<6 { subject.send(i) }
        #expect(tracker.values == [0, 1])
        tracker.request(.max(3))
        #expect(tracker.values == [0, 1, 2, 3, 4])
    }

    @Test func demandReturnedFromReceiveIsHonoured() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .max(1), demandPerValue: { $0 < 3 ? .max(1) : .none })
        upstream.buffer(size: 10, prefetch: .byRequest, whenFull: .dropNewest).subscribe(tracker)
        for i in 1...5 { upstream.send(i) }
        #expect(tracker.values == [1, 2, 3])
        tracker.request(.max(1))
        #expect(tracker.values == [1, 2, 3, 4])
    }

    @Test func contract() {
        OperatorChecks.cancelReachesUpstream { $0.buffer(size: 2, prefetch: .keepFull, whenFull: .dropNewest) }
        OperatorChecks.cancelReachesUpstream { $0.buffer(size: 2, prefetch: .byRequest, whenFull: .dropOldest) }
        OperatorChecks.cancelReleasesTheChain { $0.buffer(size: 2, prefetch: .keepFull, whenFull: .dropNewest) }
        OperatorChecks.completionReleasesTheChain { $0.buffer(size: 2, prefetch: .byRequest, whenFull: .dropOldest) }
        OperatorChecks.secondSubscriptionIsCancelled { $0.buffer(size: 2, prefetch: .keepFull, whenFull: .dropNewest) }
        #expect(Publishers.PrefetchStrategy.keepFull != .byRequest)
    }

    @Test func negativeSizeTrapsWhenSubscribing() async {
        await #expect(processExitsWith: .failure) {
            _ = [1].publisher.buffer(size: -1, prefetch: .byRequest, whenFull: .dropNewest).sink { _ in }
        }
    }
}
