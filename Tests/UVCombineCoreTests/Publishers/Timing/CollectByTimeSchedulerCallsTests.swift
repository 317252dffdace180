import Dispatch
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineTesting

// collect(.byTime) and collect(.byTimeOrCount) against Combine's rules: the
// scheduler calls (a recording scheduler on virtual time, strides in
// nanoseconds), the demand asked of the upstream, what goes through the
// scheduler, and what a pending action keeps alive. The rules are those
// CombineX's specs pin against Combine (the versioned ones: Combine's
// releases since 2021 schedule full windows and the completion).

private typealias Call = SchedulerCall

@Suite("collect(byTime): Combine's scheduler calls and demand")
struct CollectByTimeSchedulerCallsTests {
    private let options = DispatchQueue.SchedulerOptions()

    /// One repeating action at subscription, first due one stride later;
    /// the windows it sends need no further scheduler calls.
    @Test func subscriptionSchedulesOneRepeatingAction() {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<[Int], TestError>()
        upstream.collect(.byTime(scheduler, .nanoseconds(10)), options: options).subscribe(tracker)
        let subscribed: [Call] = [.now, .minimumTolerance,
                                  .scheduleAfterInterval(10, interval: 10, tolerance: 7, options: true)]
        #expect(scheduler.calls == subscribed)
        upstream.send(1)
        scheduler.advance(to: 10)
        upstream.send(2)
        upstream.send(3)
        scheduler.advance(to: 35)
        #expect(tracker.values == [[1], [2, 3]])
        #expect(scheduler.calls == subscribed)
    }

    /// `.byTime` asks the upstream for one element per request of the
    /// subscriber and answers every element with one more; what the
    /// subscriber returns for a window only adds to its own demand.
    @Test func byTimeAsksOneElementPerRequestAndPerElement() {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<[Int], TestError>(initialDemand: .max(2), demandPerValue: { _ in .max(1) })
        upstream.collect(.byTime(scheduler, .nanoseconds(10))).subscribe(tracker)
        #expect(upstream.subscription?.requested == [.max(1)])
        #expect(upstream.send(0) == .max(1))
        #expect(upstream.send(1) == .max(1))
        scheduler.advance(to: 10)
        #expect(tracker.values == [[0, 1]])
        #expect(upstream.subscription?.requested == [.max(1)])
        tracker.request(.max(5))
        #expect(upstream.subscription?.requested == [.max(1), .max(1)])
    }

    /// Windows go out only against demand; an empty window sends nothing.
    /// (Whether Combine sends empty arrays is not known; its specs pass
    /// either way.)
    @Test func byTimeSendsAsManyWindowsAsDemanded() {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<[Int], TestError>(
            initialDemand: .max(2), demandPerValue: { $0.contains(0) || $0.contains(5) ? .max(1) : .none })
        upstream.collect(.byTime(scheduler, .nanoseconds(10))).subscribe(tracker)
        for i in 0..<30 {
            if i % 3 == 0 { scheduler.advance(to: (i / 3 + 1) * 10) }
            upstream.send(i)
        }
        #expect(tracker.values == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]])
    }

    /// `.byTimeOrCount` asks for `count × n`; a full buffer is sent through
    /// `schedule(options:)` and the subscriber's answer to it goes upstream
    /// times `count`, while its answer to a periodic window only adds to its
    /// demand. Every element is answered with nothing.
    @Test func byTimeOrCountSchedulesFullWindowsAndAnswersThemUpstream() {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<[Int], TestError>(initialDemand: .max(2), demandPerValue: { window in
            if window.contains(0) { return .max(1) }
            if window.contains(2) { return .max(5) }
            return .none
        })
        upstream.collect(.byTimeOrCount(scheduler, .nanoseconds(10), 2), options: options).subscribe(tracker)
        #expect(upstream.subscription?.requested == [.max(4)])
        var answers: [Subscribers.Demand] = []
        for i in 0..<30 {
            if i % 3 == 0 { scheduler.advance(to: (i / 3 + 1) * 10) }
            // An upstream that honours its demand.
            let budget = upstream.subscription?.totalDemand ?? .none
            guard Subscribers.Demand.max(i) < budget else { continue }
            answers.append(upstream.send(i))
        }
        #expect(tracker.values == [[0, 1], [2], [3, 4], [5]])
        #expect(upstream.subscription?.requested == [.max(4), .max(2)])
        #expect(answers == Array(repeating: .none, count: 6))
        #expect(scheduler.calls.filter { $0 == .schedule(options: true) }.count == 2)
    }

    /// A full window is handed to the scheduler, not sent at once. Cancel
    /// stops the periodic action and the upstream, and drops a window
    /// already handed to the scheduler.
    @Test(arguments: [false, true])
    func aFullWindowWaitsForTheScheduler(_ cancels: Bool) {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<[Int], TestError>()
        upstream.collect(.byTimeOrCount(scheduler, .nanoseconds(10), 2)).subscribe(tracker)
        upstream.send(1)
        upstream.send(2)
        #expect(tracker.values.isEmpty)
        #expect(scheduler.calls.last == .schedule(options: false))
        if cancels {
            tracker.cancel()
            tracker.cancel()
            #expect(scheduler.cancelCount == 1)
            #expect(upstream.subscription?.cancelCount == 1)
        }
        scheduler.advance(to: 30)
        #expect(tracker.values == (cancels ? [] : [[1, 2]]))
    }

    /// The completion stops the periodic action at once and reaches the
    /// subscriber through `schedule(options:)`: `.finished` after what was
    /// collected, a failure instead of it.
    @Test(arguments: [false, true])
    func completionGoesThroughTheScheduler(_ fails: Bool) {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<[Int], TestError>()
        upstream.collect(.byTime(scheduler, .nanoseconds(10)), options: options).subscribe(tracker)
        upstream.send(1)
        upstream.send(completion: fails ? .failure(.boom) : .finished)
        #expect(tracker.history == ["subscription(CollectByTime)"])
        #expect(scheduler.cancelCount == 1)
        #expect(scheduler.calls.last == .schedule(options: true))
        scheduler.run()
        #expect(tracker.history == ["subscription(CollectByTime)"]
            + (fails ? ["failure(boom)"] : ["value([1])", "finished"]))
    }

    /// A scheduled completion keeps the subscription alive until it ran;
    /// then everything is released.
    @Test func aScheduledCompletionHoldsTheSubscriptionUntilItRan() {
        let scheduler = RecordingScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let probe = SubscriptionProbe<[Int], TestError>()
        subject.collect(.byTime(scheduler, .nanoseconds(10))).subscribe(probe)
        subject.send(1)
        subject.send(completion: .finished)
        #expect(probe.weakSubscription != nil)
        scheduler.run()
        #expect(probe.values == [[1]])
        #expect(probe.completion == .finished)
        #expect(probe.weakSubscription == nil)
    }
}
