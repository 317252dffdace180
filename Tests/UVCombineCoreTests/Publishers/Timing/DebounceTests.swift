import Dispatch
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineTesting

@Suite("debounce")
struct DebounceTests {
    @Test func deliversAValueOnceDueTimePassesWithoutANewerOne() {
        let scheduler = DispatchQueue.test
        let out = scheduler.marbles("a-b--c---|", tick: .seconds(1)) {
            $0.debounce(for: .seconds(2), scheduler: scheduler)
        }
        #expect(out == "----b--c-|")
    }

    @Test func aBurstYieldsItsLastValue() {
        let scheduler = DispatchQueue.test
        let out = scheduler.marbles("abcd----e---|", tick: .seconds(1)) {
            $0.debounce(for: .seconds(2), scheduler: scheduler)
        }
        #expect(out == "-----d----e-|")
    }

    @Test func aValueArrivingAtTheDeadlineInstantRestartsTheWait() {
        let scheduler = DispatchQueue.test
        let out = scheduler.marbles("a-b---|", tick: .seconds(1)) {
            $0.debounce(for: .seconds(2), scheduler: scheduler)
        }
        #expect(out == "----b-|")
    }

    /// Combine drops a value still waiting when the upstream completes and
    /// delivers the completion at once (OpenCombine's DebounceTests
    /// `testFinishBeforeDue` / `testFailBeforeDue`, which run against
    /// Apple's Combine in compatibility mode, record only the completion).
    @Test func completionDuringAPendingDebounceDropsTheValue() {
        let scheduler = DispatchQueue.test
        #expect(scheduler.marbles("a-b|", tick: .seconds(1)) {
            $0.debounce(for: .seconds(2), scheduler: scheduler)
        } == "---|")
        #expect(scheduler.marbles("a-b#", tick: .seconds(1)) {
            $0.debounce(for: .seconds(2), scheduler: scheduler)
        } == "---#")
    }

    @Test func requestsUnlimitedAndDropsValuesThatFallDueWithoutDemand() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        upstream.debounce(for: .seconds(1), scheduler: scheduler).subscribe(tracker)
        #expect(upstream.subscription?.requested == [.unlimited])
        upstream.send(1)
        scheduler.advance(by: .seconds(1))
        upstream.send(2)
        scheduler.advance(by: .seconds(1)) // no demand: dropped
        tracker.request(.max(1))
        upstream.send(3)
        scheduler.advance(by: .seconds(1))
        #expect(tracker.values == [1, 3])
    }

    @Test func oneValuePerRequest() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: { _ in .max(1) })
        upstream.debounce(for: .seconds(1), scheduler: scheduler).subscribe(tracker)
        for i in 1...3 {
            upstream.send(i)
            scheduler.advance(by: .seconds(1))
        }
        #expect(tracker.values == [1, 2, 3])
    }

    @Test func aBurstSchedulesOneAction() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        subject.debounce(for: .seconds(1), scheduler: scheduler).subscribe(tracker)
        for i in 0..<100 { subject.send(i) }
        #expect(scheduler.pendingActionCount == 1)
        scheduler.advance(by: .seconds(1))
        #expect(tracker.values == [99])
        #expect(scheduler.pendingActionCount == 0)
    }

    @Test func cancelReachesUpstreamAndStopsThePendingValue() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.debounce(for: .seconds(1), scheduler: scheduler).subscribe(tracker)
        upstream.send(1)
        tracker.cancel()
        #expect(upstream.subscription?.isCancelled == true)
        #expect(scheduler.pendingActionCount == 0) // the alarm is cancelled
        scheduler.advance(by: .seconds(2))
        #expect(tracker.values.isEmpty)
    }

    @Test func innerIsReleasedAfterCancel() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let probe = SubscriptionProbe<Int, Never>()
        subject.debounce(for: .seconds(1), scheduler: scheduler).subscribe(probe)
        subject.send(1)
        probe.cancelAndRelease()
        #expect(probe.weakSubscription == nil)
    }

    @Test func immediateSchedulerDeliversAtOnce() {
        let subject = PassthroughSubject<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        subject.debounce(for: .seconds(1), scheduler: ImmediateScheduler.shared).subscribe(tracker)
        subject.send(1)
        subject.send(2)
        #expect(tracker.values == [1, 2])
    }

    @Test func description() {
        let probe = SubscriptionProbe<Int, Never>()
        Just(1).debounce(for: .seconds(1), scheduler: DispatchQueue.test).subscribe(probe)
        #expect(probe.subscriptionDescription == "Debounce")
    }
}
