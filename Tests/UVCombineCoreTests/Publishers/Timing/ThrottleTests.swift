import Dispatch
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineTesting

@Suite("throttle")
struct ThrottleTests {
    private func run(_ input: String, latest: Bool) -> String {
        let scheduler = DispatchQueue.test
        return scheduler.marbles(input, tick: .seconds(1)) {
            $0.throttle(for: .seconds(3), scheduler: scheduler, latest: latest)
        }
    }

    @Test func latestFalseKeepsTheFirstValueOfEachWindow() {
        #expect(run("abcd------|", latest: false) == "a--b------|")
        #expect(run("ab-c-d-e---|", latest: false) == "a--b--d--e-|")
    }

    @Test func latestTrueKeepsTheMostRecentValueOfEachWindow() {
        #expect(run("abcd------|", latest: true) == "a--d------|")
        #expect(run("ab-c-d-e---|", latest: true) == "a--c--d--e-|")
    }

    @Test func aQuietPeriodLetsTheNextValueThroughAtOnce() {
        #expect(run("a-----b---|", latest: true) == "a-----b---|")
    }

    @Test func completionWaitsForTheScheduledValue() {
        #expect(run("ab|", latest: false) == "a--(b|)")
        #expect(run("ab#", latest: true) == "a--(b#)")
        #expect(run("a--|", latest: false) == "a--|")
    }

    @Test func valuesArrivingWithoutDemandAreDropped() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        upstream.throttle(for: .seconds(1), scheduler: scheduler, latest: true).subscribe(tracker)
        #expect(upstream.subscription?.requested == [.unlimited])
        upstream.send(1)
        scheduler.advance()
        upstream.send(2) // no demand left: dropped
        scheduler.advance(by: .seconds(2))
        tracker.request(.max(1))
        upstream.send(3)
        scheduler.advance(by: .seconds(1))
        #expect(tracker.values == [1, 3])
    }

    @Test func oneValuePerRequest() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: { _ in .max(1) })
        upstream.throttle(for: .seconds(1), scheduler: scheduler, latest: false).subscribe(tracker)
        for i in 1...3 {
            upstream.send(i)
            scheduler.advance(by: .seconds(1))
        }
        #expect(tracker.values == [1, 2, 3])
    }

    @Test func cancelReachesUpstreamAndDropsTheScheduledValue() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.throttle(for: .seconds(1), scheduler: scheduler, latest: true).subscribe(tracker)
        upstream.send(1)
        tracker.cancel()
        #expect(upstream.subscription?.isCancelled == true)
        scheduler.advance(by: .seconds(2))
        #expect(tracker.values.isEmpty)
    }

    @Test func innerIsReleasedAfterCancel() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let probe = SubscriptionProbe<Int, Never>()
        subject.throttle(for: .seconds(1), scheduler: scheduler, latest: false).subscribe(probe)
        subject.send(1)
        probe.cancelAndRelease()
        #expect(probe.weakSubscription == nil)
        scheduler.advance(by: .seconds(1)) // the scheduled emission finds nothing
        #expect(probe.values.isEmpty)
    }

    @Test func description() {
        let probe = SubscriptionProbe<Int, Never>()
        Just(1).throttle(for: .seconds(1), scheduler: DispatchQueue.test, latest: true).subscribe(probe)
        #expect(probe.subscriptionDescription == "Throttle")
    }
}
