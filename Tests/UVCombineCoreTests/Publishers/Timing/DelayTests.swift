import Dispatch
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineTesting

@Suite("delay")
struct DelayTests {
    @Test func shiftsEveryEventByTheIntervalPreservingSpacing() {
        let scheduler = DispatchQueue.test
        #expect(scheduler.marbles("a-b---c|", tick: .seconds(1)) {
            $0.delay(for: .seconds(2), scheduler: scheduler)
        } == "--a-b---c|")
        #expect(scheduler.marbles("ab-c", tick: .seconds(1), ticks: 7) {
            $0.delay(for: .seconds(3), scheduler: scheduler)
        } == "---ab-c")
    }

    @Test func failureIsDelayedToo() {
        let scheduler = DispatchQueue.test
        #expect(scheduler.marbles("a#", tick: .seconds(1)) {
            $0.delay(for: .seconds(2), scheduler: scheduler)
        } == "--a#")
    }

    @Test func sameInstantEventsStayTogetherAndInOrder() {
        let scheduler = DispatchQueue.test
        #expect(scheduler.marbles("(ab)-(c|)", tick: .seconds(1)) {
            $0.delay(for: .seconds(1), scheduler: scheduler)
        } == "-(ab)-(c|)")
    }

    @Test func subscriptionAndDemandPassThroughSynchronously() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: { _ in .max(1) })
        upstream.delay(for: .seconds(1), scheduler: scheduler).subscribe(tracker)
        #expect(tracker.history.count == 1) // the subscription (its description is not customised)
        #expect(upstream.subscription?.requested == [.max(1)])
        upstream.send(5)
        #expect(upstream.subscription?.requested == [.max(1)])
        scheduler.advance(by: .seconds(1))
        #expect(tracker.values == [5])
        // The demand returned on delivery goes upstream then.
        #expect(upstream.subscription?.requested == [.max(1), .max(1)])
    }

    @Test func oneValuePerRequestWithASequence() {
        let scheduler = DispatchQueue.test
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        (1...3).publisher.delay(for: .seconds(1), scheduler: scheduler).subscribe(tracker)
        scheduler.advance(by: .seconds(5))
        #expect(tracker.values == [1])
        tracker.request(.max(2))
        scheduler.advance(by: .seconds(5))
        #expect(Array(tracker.history.dropFirst()) == ["value(1)", "value(2)", "value(3)", "finished"])
    }

    @Test func oneScheduledActionPerEventAsCombine() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        subject.delay(for: .seconds(10), scheduler: scheduler).subscribe(tracker)
        for i in 0..<5 {
            subject.send(i)
            scheduler.advance(by: .seconds(1))
        }
        #expect(scheduler.pendingActionCount == 5)
        scheduler.advance(by: .seconds(10))
        #expect(tracker.values == [0, 1, 2, 3, 4])
        #expect(scheduler.executedActionCount == 5)
    }

    @Test func cancelAfterTheUpstreamFinishedIsIgnoredAsInCombine() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.delay(for: .seconds(1), scheduler: scheduler).subscribe(tracker)
        upstream.send(1)
        upstream.send(completion: .finished)
        tracker.cancel()
        scheduler.advance(by: .seconds(2))
        #expect(Array(tracker.history.dropFirst()) == ["value(1)", "finished"])
        #expect(upstream.subscription?.isCancelled == false) // it had already finished
        let tracker2 = TrackingSubscriber<Int, Never>()
        upstream.delay(for: .seconds(1), scheduler: scheduler).subscribe(tracker2)
        tracker2.cancel()
        #expect(upstream.subscription?.isCancelled == true)
    }

    @Test func innerIsReleasedAfterCancel() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let probe = SubscriptionProbe<Int, Never>()
        subject.delay(for: .seconds(1), scheduler: scheduler).subscribe(probe)
        subject.send(1)
        probe.cancelAndRelease()
        // The pending action holds the subscription until it ran, as in
        // Combine; it delivers nothing.
        #expect(probe.weakSubscription != nil)
        scheduler.advance(by: .seconds(1))
        #expect(probe.weakSubscription == nil)
        #expect(probe.values.isEmpty)
    }

    @Test func immediateSchedulerWithASequenceDoesNotRecurse() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: { _ in .max(1) })
        (0..<50_000).publisher.delay(for: .seconds(1), scheduler: ImmediateScheduler.shared).subscribe(tracker)
        #expect(tracker.values.count == 50_000)
        #expect(tracker.completion == .finished)
    }
}
