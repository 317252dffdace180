import Dispatch
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineTesting

@Suite("collect(byTime)")
struct CollectByTimeTests {
    private func bracketed<P: Publisher>(_ p: P) -> Publishers.Map<P, String> where P.Output == [String] {
        p.map { "[" + $0.joined() + "]" }
    }

    @Test func sendsWhatEachWindowCollected() {
        let scheduler = DispatchQueue.test
        #expect(scheduler.marbles("ab--c-d---|", tick: .seconds(1)) {
            bracketed($0.collect(.byTime(scheduler, .seconds(3))))
        } == "---[ab]--[cd]---|")
    }

    @Test func finishingSendsTheRestThenFinishes() {
        let scheduler = DispatchQueue.test
        #expect(scheduler.marbles("ab-c|", tick: .seconds(1)) {
            bracketed($0.collect(.byTime(scheduler, .seconds(3))))
        } == "---[abc]|")
        #expect(scheduler.marbles("a|", tick: .seconds(1)) {
            bracketed($0.collect(.byTime(scheduler, .seconds(3))))
        } == "-([a]|)")
    }

    @Test func failureDropsTheCollectedElements() {
        let scheduler = DispatchQueue.test
        #expect(scheduler.marbles("ab#", tick: .seconds(1)) {
            bracketed($0.collect(.byTime(scheduler, .seconds(3))))
        } == "--#")
    }

    @Test func byTimeOrCountSendsAFullBufferAtOnce() {
        let scheduler = DispatchQueue.test
        #expect(scheduler.marbles("abc---d|", tick: .seconds(1)) {
            bracketed($0.collect(.byTimeOrCount(scheduler, .seconds(3), 2)))
        } == "-[ab]-[c]--[d]|")
    }

    @Test func byTimeAsksOnePerRequestAndPerElementAndKeepsCollectingWithoutDemand() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<[Int], Never>(initialDemand: .none)
        upstream.collect(.byTime(scheduler, .seconds(1))).subscribe(tracker)
        #expect(upstream.subscription?.requested == [])
        #expect(upstream.send(1) == .max(1))
        scheduler.advance(by: .seconds(1)) // no demand: the window rolls over
        #expect(upstream.send(2) == .max(1))
        tracker.request(.max(3))
        #expect(upstream.subscription?.requested == [.max(1)])
        scheduler.advance(by: .seconds(1))
        #expect(tracker.values == [[1, 2]])
    }

    @Test func byTimeOrCountRequestsCountTimesTheDemand() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<[Int], Never>(initialDemand: .max(2), demandPerValue: { _ in .max(1) })
        upstream.collect(.byTimeOrCount(scheduler, .seconds(10), 3)).subscribe(tracker)
        #expect(upstream.subscription?.requested == [.max(6)])
        for i in 1...3 { #expect(upstream.send(i) == .none) }
        #expect(tracker.values.isEmpty) // a full buffer goes through the scheduler
        scheduler.advance()
        #expect(tracker.values == [[1, 2, 3]])
        #expect(upstream.subscription?.requested == [.max(6), .max(3)])
    }

    @Test func finishingWithoutDemandWaitsForTheNextRequest() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<[Int], Never>(initialDemand: .none)
        upstream.collect(.byTime(scheduler, .seconds(1))).subscribe(tracker)
        upstream.send(1)
        upstream.send(completion: .finished)
        scheduler.advance()
        #expect(tracker.history == ["subscription(CollectByTime)"])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(CollectByTime)", "value([1])", "finished"])
    }

    @Test func cancelReachesUpstreamAndStopsTheTimer() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<[Int], Never>()
        upstream.collect(.byTime(scheduler, .seconds(1))).subscribe(tracker)
        upstream.send(1)
        #expect(scheduler.pendingActionCount == 1)
        tracker.cancel()
        #expect(upstream.subscription?.isCancelled == true)
        #expect(scheduler.pendingActionCount == 0)
        scheduler.advance(by: .seconds(2))
        #expect(tracker.values.isEmpty)
    }

    @Test func innerIsReleasedAfterCancel() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let probe = SubscriptionProbe<[Int], Never>()
        subject.collect(.byTime(scheduler, .seconds(1))).subscribe(probe)
        subject.send(1)
        probe.cancelAndRelease()
        #expect(probe.weakSubscription == nil)
    }
}
