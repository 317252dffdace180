import Dispatch
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineTesting

@Suite("timeout")
struct TimeoutTests {
    @Test func firesExactlyAtTheDeadlineAndNotOneTickBefore() {
        let scheduler = DispatchQueue.test
        #expect(scheduler.marbles("a-----", tick: .seconds(1)) {
            $0.timeout(.seconds(3), scheduler: scheduler)
        } == "a--|")
        // Probe the instant before the deadline directly.
        let upstream = PassthroughSubject<String, MarbleError>()
        let tracker = TrackingSubscriber<String, MarbleError>()
        let probeScheduler = DispatchQueue.test
        upstream.timeout(.seconds(3), scheduler: probeScheduler).subscribe(tracker)
        probeScheduler.advance(by: .nanoseconds(2_999_999_999))
        #expect(tracker.completion == nil)
        probeScheduler.advance(by: .nanoseconds(1))
        #expect(tracker.completion == .finished)
    }

    @Test func eachValueRestartsTheClock() {
        let scheduler = DispatchQueue.test
        #expect(scheduler.marbles("a-b-c-----", tick: .seconds(1)) {
            $0.timeout(.seconds(3), scheduler: scheduler)
        } == "a-b-c--|")
    }

    @Test func aValueAtTheDeadlineInstantArrivesFirst() {
        let scheduler = DispatchQueue.test
        #expect(scheduler.marbles("a--b-----", tick: .seconds(1)) {
            $0.timeout(.seconds(3), scheduler: scheduler)
        } == "a--b--|")
        #expect(scheduler.marbles("a---b", tick: .seconds(1)) {
            $0.timeout(.seconds(3), scheduler: scheduler)
        } == "a--|")
    }

    @Test func customErrorFailsInsteadOfFinishing() {
        let scheduler = DispatchQueue.test
        #expect(scheduler.marbles("ab------", tick: .seconds(1)) {
            $0.timeout(.seconds(2), scheduler: scheduler, customError: { MarbleError() })
        } == "ab-#")
    }

    @Test func upstreamCompletionWinsBeforeTheDeadline() {
        let scheduler = DispatchQueue.test
        #expect(scheduler.marbles("a-|----", tick: .seconds(1)) {
            $0.timeout(.seconds(3), scheduler: scheduler)
        } == "a-|")
        #expect(scheduler.marbles("a-#", tick: .seconds(1)) {
            $0.timeout(.seconds(3), scheduler: scheduler)
        } == "a-#")
        #expect(scheduler.pendingActionCount == 0)
    }

    @Test func timingOutCancelsTheUpstream() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.timeout(.seconds(1), scheduler: scheduler).subscribe(tracker)
        scheduler.advance(by: .seconds(1))
        #expect(upstream.subscription?.isCancelled == true)
        #expect(tracker.history == ["subscription(Timeout)", "finished"])
        upstream.send(1) // too late
        scheduler.advance()
        #expect(tracker.values.isEmpty)
    }

    @Test func valuesAreDeliveredOnTheSchedulerInOrder() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.timeout(.seconds(5), scheduler: scheduler).subscribe(tracker)
        upstream.send(1)
        upstream.send(2)
        #expect(tracker.values.isEmpty)
        scheduler.advance()
        #expect(tracker.values == [1, 2])
    }

    @Test func demandPassesUpstreamAndOneValuePerRequest() {
        let scheduler = DispatchQueue.test
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        (1...3).publisher.timeout(.seconds(5), scheduler: scheduler).subscribe(tracker)
        scheduler.advance()
        #expect(tracker.values == [1])
        tracker.request(.max(1))
        scheduler.advance()
        #expect(tracker.values == [1, 2])
        tracker.request(.max(1))
        scheduler.advance()
        #expect(tracker.history == ["subscription(Timeout)", "value(1)", "value(2)", "value(3)", "finished"])
    }

    @Test func theClockRestartsAtTheFirstRequest() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        upstream.timeout(.seconds(3), scheduler: scheduler).subscribe(tracker)
        scheduler.advance(by: .seconds(2))
        tracker.request(.max(1))
        scheduler.advance(by: .seconds(2)) // 4 s since subscription, 2 s since the request
        #expect(tracker.completion == nil)
        scheduler.advance(by: .seconds(1))
        #expect(tracker.completion == .finished)
    }

    @Test func cancelReachesUpstreamAndRemovesTheClock() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.timeout(.seconds(1), scheduler: scheduler).subscribe(tracker)
        upstream.send(1)
        tracker.cancel()
        #expect(upstream.subscription?.isCancelled == true)
        scheduler.advance(by: .seconds(2))
        #expect(tracker.history == ["subscription(Timeout)"])
        #expect(scheduler.pendingActionCount == 0)
    }

    @Test func innerIsReleasedAfterCancel() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let probe = SubscriptionProbe<Int, Never>()
        subject.timeout(.seconds(1), scheduler: scheduler).subscribe(probe)
        subject.send(1)
        probe.cancelAndRelease()
        // The value's scheduled action holds it until it ran, as in Combine.
        #expect(probe.weakSubscription != nil)
        scheduler.advance()
        #expect(probe.weakSubscription == nil)
        #expect(probe.values.isEmpty)
    }

    @Test func immediateSchedulerTimesOutRightAfterTheSubscription() {
        let tracker = TrackingSubscriber<Int, Never>()
        PassthroughSubject<Int, Never>().timeout(.seconds(1), scheduler: ImmediateScheduler.shared).subscribe(tracker)
        #expect(tracker.history == ["subscription(Timeout)", "finished"])
    }
}
