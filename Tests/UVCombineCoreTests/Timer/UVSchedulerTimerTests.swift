import Dispatch
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineFoundation
import UVCombineTesting

@Suite("UVSchedulerTimer")
struct UVSchedulerTimerTests {
    typealias Time = DispatchQueue.SchedulerTimeType

    @Test func nothingHappensBeforeConnect() {
        let scheduler = DispatchQueue.test
        let timer = UVSchedulerTimer.publish(every: .seconds(1), on: scheduler)
        let tracker = TrackingSubscriber<Time, Never>()
        timer.subscribe(tracker)
        #expect(tracker.history == ["subscription(Timer)"])
        scheduler.advance(by: .seconds(5))
        #expect(tracker.values.isEmpty)
        #expect(scheduler.pendingActionCount == 0)
    }

    @Test func firstTickComesOneIntervalAfterConnect() {
        let scheduler = DispatchQueue.test
        let start = scheduler.now
        let timer = UVSchedulerTimer(every: .seconds(1), scheduler: scheduler)
        let tracker = TrackingSubscriber<Time, Never>()
        timer.subscribe(tracker)
        scheduler.advance(by: .milliseconds(500))
        let connection = timer.connect()
        scheduler.advance(by: .nanoseconds(999_999_999))
        #expect(tracker.values.isEmpty)
        scheduler.advance(by: .nanoseconds(1))
        #expect(tracker.values == [start.advanced(by: .milliseconds(1_500))])
        scheduler.advance(by: .seconds(2))
        #expect(tracker.values.map { start.distance(to: $0) } == [.milliseconds(1_500), .milliseconds(2_500),
                                                                  .milliseconds(3_500)])
        connection.cancel()
    }

    @Test func ticksWithZeroDemandAreDroppedNotQueued() {
        let scheduler = DispatchQueue.test
        let start = scheduler.now
        let timer = UVSchedulerTimer.publish(every: .seconds(1), on: scheduler)
        let tracker = TrackingSubscriber<Time, Never>(initialDemand: .max(1))
        timer.subscribe(tracker)
        let connection = timer.connect()
        scheduler.advance(by: .seconds(3)) // ticks at 1, 2, 3: only the first is wanted
        #expect(tracker.values.map { start.distance(to: $0) } == [.seconds(1)])
        tracker.request(.max(1)) // nothing was queued: no value now
        #expect(tracker.values.count == 1)
        scheduler.advance(by: .seconds(1))
        #expect(tracker.values.map { start.distance(to: $0) } == [.seconds(1), .seconds(4)])
        connection.cancel()
    }

    @Test func autoconnectConnectsOnFirstSubscriberAndStopsOnLastCancel() {
        let scheduler = DispatchQueue.test
        let start = scheduler.now
        let timer = UVSchedulerTimer.publish(every: .seconds(1), on: scheduler).autoconnect()
        let tracker = TrackingSubscriber<Time, Never>()
        timer.subscribe(tracker)
        scheduler.advance(by: .seconds(2))
        #expect(tracker.values.map { start.distance(to: $0) } == [.seconds(1), .seconds(2)])
        tracker.cancel()
        #expect(scheduler.pendingActionCount == 0)
        let again = TrackingSubscriber<Time, Never>()
        timer.subscribe(again)
        scheduler.advance(by: .seconds(1))
        #expect(again.values.map { start.distance(to: $0) } == [.seconds(3)])
        again.cancel()
    }

    @Test func cancellingTheConnectionStopsTheTimer() {
        let scheduler = DispatchQueue.test
        let timer = UVSchedulerTimer.publish(every: .seconds(1), on: scheduler)
        let tracker = TrackingSubscriber<Time, Never>()
        timer.subscribe(tracker)
        let connection = timer.connect()
        scheduler.advance(by: .seconds(2))
        connection.cancel()
        #expect(scheduler.pendingActionCount == 0)
        scheduler.advance(by: .seconds(5))
        #expect(tracker.values.count == 2)
        #expect(tracker.completion == nil) // a timer never completes
    }

    @Test func connectingAgainAfterCancelStartsAfresh() {
        let scheduler = DispatchQueue.test
        let start = scheduler.now
        let timer = UVSchedulerTimer.publish(every: .seconds(2), on: scheduler)
        let detached = TrackingSubscriber<Time, Never>()
        timer.subscribe(detached)
        timer.connect().cancel() // detaches `detached`, as Foundation's timer does
        scheduler.advance(by: .seconds(3))
        let later = TrackingSubscriber<Time, Never>()
        timer.subscribe(later)
        let connection = timer.connect()
        scheduler.advance(by: .seconds(2))
        #expect(later.values.map { start.distance(to: $0) } == [.seconds(5)])
        #expect(detached.values.isEmpty)
        #expect(detached.completion == nil)
        connection.cancel()
    }

    /// As Foundation's `Timer.TimerPublisher` (and `UVTimer`): each
    /// `connect()` schedules its own repeating action, and subscribers get
    /// the ticks of every running connection.
    @Test func connectingTwiceRunsTwoTimers() {
        let scheduler = DispatchQueue.test
        let start = scheduler.now
        let timer = UVSchedulerTimer.publish(every: .seconds(2), on: scheduler)
        let tracker = TrackingSubscriber<Time, Never>()
        timer.subscribe(tracker)
        let first = timer.connect()
        scheduler.advance(by: .seconds(1))
        let second = timer.connect()
        // (Computed outside #expect: the macro's expansion of === on
        // existentials crashes the 6.3.1 compiler.)
        let same = ObjectIdentifier(first as AnyObject) == ObjectIdentifier(second as AnyObject)
        #expect(!same)
        #expect(scheduler.pendingActionCount == 2)
        scheduler.advance(by: .seconds(4))
        #expect(tracker.values.map { start.distance(to: $0) } == [.seconds(2), .seconds(3), .seconds(4), .seconds(5)])
        first.cancel()
        #expect(scheduler.pendingActionCount == 1)
        second.cancel()
        #expect(scheduler.pendingActionCount == 0)
    }

    /// Cancelling one connection detaches every subscriber attached then,
    /// even though another connection still runs; a subscriber that comes
    /// later gets the other connection's ticks. Cancelling twice is a no-op.
    @Test func cancellingOneConnectionDetachesTheSubscribers() {
        let scheduler = DispatchQueue.test
        let start = scheduler.now
        let timer = UVSchedulerTimer.publish(every: .seconds(1), on: scheduler)
        let early = TrackingSubscriber<Time, Never>()
        timer.subscribe(early)
        let first = timer.connect()
        let second = timer.connect()
        scheduler.advance(by: .seconds(1))
        #expect(early.values.count == 2) // one tick from each connection
        first.cancel()
        scheduler.advance(by: .seconds(2))
        #expect(early.values.count == 2)
        #expect(early.completion == nil)
        early.request(.max(5)) // a detached subscription ignores demand
        let late = TrackingSubscriber<Time, Never>()
        timer.subscribe(late)
        scheduler.advance(by: .seconds(2))
        #expect(late.values.map { start.distance(to: $0) } == [.seconds(4), .seconds(5)])
        #expect(early.values.count == 2)
        first.cancel()
        #expect(scheduler.pendingActionCount == 1)
        scheduler.advance(by: .seconds(1))
        #expect(late.values.count == 3) // the second connection kept running
        early.cancel() // a detached subscription's cancel does nothing more
        second.cancel()
        #expect(scheduler.pendingActionCount == 0)
        late.cancel()
    }

    @Test func subscribersShareTheTimerWithTheirOwnDemand() {
        let scheduler = DispatchQueue.test
        let timer = UVSchedulerTimer.publish(every: .seconds(1), on: scheduler)
        let all = TrackingSubscriber<Time, Never>()
        let one = TrackingSubscriber<Time, Never>(initialDemand: .max(1))
        timer.subscribe(all)
        timer.subscribe(one)
        let connection = timer.connect()
        scheduler.advance(by: .seconds(3))
        #expect(all.values.count == 3)
        #expect(one.values.count == 1)
        one.cancel()
        scheduler.advance(by: .seconds(1))
        #expect(all.values.count == 4)
        connection.cancel()
    }

    @Test func aCancelledSubscriberIsReleased() {
        let scheduler = DispatchQueue.test
        let timer = UVSchedulerTimer.publish(every: .seconds(1), on: scheduler)
        let probe = SubscriptionProbe<Time, Never>()
        timer.subscribe(probe)
        let connection = timer.connect()
        scheduler.advance(by: .seconds(1))
        #expect(probe.values.count == 1)
        probe.cancelAndRelease()
        #expect(probe.weakSubscription == nil)
        scheduler.advance(by: .seconds(1))
        #expect(probe.values.count == 1)
        connection.cancel()
    }

    @Test func theTimerIsReleasedOnceDisconnectedAndUnreferenced() {
        let scheduler = DispatchQueue.test
        weak var weakTimer: UVSchedulerTimer<TestSchedulerOf<DispatchQueue>>?
        var connection: (any Cancellable)?
        do {
            let timer = UVSchedulerTimer.publish(every: .seconds(1), on: scheduler)
            weakTimer = timer
            connection = timer.connect()
        }
        #expect(weakTimer != nil) // the scheduler holds a connected timer
        connection?.cancel()
        #expect(weakTimer == nil)
    }

    @Test func worksWithSinkAndMap() {
        let scheduler = DispatchQueue.test
        let timer = UVSchedulerTimer.publish(every: .seconds(1), on: scheduler)
        var count = 0
        let c = timer.map { _ in 1 }.sink { count += $0 }
        let connection = timer.connect()
        scheduler.advance(by: .seconds(10))
        #expect(count == 10)
        c.cancel()
        connection.cancel()
    }
}
