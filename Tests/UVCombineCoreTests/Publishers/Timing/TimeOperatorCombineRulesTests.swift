import Dispatch
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineTesting

// Combine's rules for the time operators, written as our own tests:
// the scheduler calls each operator makes (observed with a recording
// scheduler), `request(.none)` accepted, what a pending scheduled action
// keeps alive, what `cancel()` does before and after the upstream
// completed, and the debugging output.

private typealias Call = SchedulerCall

/// A subscriber that reports its deinitialisation through a weak
/// reference held by the test.
private final class Probe: Subscriber, @unchecked Sendable {
    typealias Input = Int
    typealias Failure = TestError
    var subscription: (any Subscription)?
    var values: [Int] = []
    var completion: Subscribers.Completion<TestError>?
    let initialDemand: Subscribers.Demand

    init(initialDemand: Subscribers.Demand = .unlimited) { self.initialDemand = initialDemand }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        if initialDemand != .none { subscription.request(initialDemand) }
    }
    func receive(_ input: Int) -> Subscribers.Demand {
        values.append(input)
        return .none
    }
    func receive(completion: Subscribers.Completion<TestError>) { self.completion = completion }
}

/// Keeps the subscription it receives, requesting `initialDemand`.
private final class Catcher<Input, Failure: Error>: Subscriber, @unchecked Sendable {
    var subscription: (any Subscription)?
    let initialDemand: Subscribers.Demand
    init(initialDemand: Subscribers.Demand = .unlimited) { self.initialDemand = initialDemand }
    func receive(subscription: any Subscription) {
        self.subscription = subscription
        if initialDemand != .none { subscription.request(initialDemand) }
    }
    func receive(_ input: Input) -> Subscribers.Demand { .none }
    func receive(completion: Subscribers.Completion<Failure>) {}
}

@Suite("Time operators: Combine's scheduler calls, lifecycle and misuse rules")
struct TimeOperatorCombineRulesTests {
    private let options = DispatchQueue.SchedulerOptions()

    // MARK: receive(on:)

    @Test func receiveOnSchedulesOncePerValueAndOncePerCompletion() {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(demandPerValue: { _ in .max(2) })
        upstream.receive(on: scheduler, options: options).subscribe(tracker)
        #expect(scheduler.calls.isEmpty)
        #expect(tracker.history == ["subscription(ReceiveOn)"])
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(scheduler.calls == [.schedule(options: true), .schedule(options: true), .schedule(options: true)])
        #expect(tracker.history == ["subscription(ReceiveOn)"])
        scheduler.run()
        #expect(tracker.history == ["subscription(ReceiveOn)", "value(1)", "value(2)", "finished"])
        // Demand the subscriber returns goes upstream with `request`.
        #expect(upstream.subscription?.requested == [.unlimited, .max(2), .max(2)])
    }

    @Test func receiveOnForwardsRequestNone() {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        upstream.receive(on: scheduler).subscribe(tracker)
        tracker.request(.none)
        tracker.request(.max(3))
        #expect(upstream.subscription?.requested == [.none, .max(3)])
    }

    @Test func receiveOnCancelDropsValuesStillOnTheirWay() {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.receive(on: scheduler).subscribe(tracker)
        upstream.send(1)
        tracker.cancel()
        upstream.send(2)
        upstream.send(completion: .finished)
        scheduler.run()
        #expect(tracker.history == ["subscription(ReceiveOn)"])
        #expect(upstream.subscription?.cancelCount == 1)
        #expect(scheduler.calls == [.schedule(options: false)])
    }

    @Test func receiveOnCancelAfterTheUpstreamCompletedIsIgnored() {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.receive(on: scheduler).subscribe(tracker)
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        tracker.cancel()
        scheduler.run()
        #expect(tracker.history == ["subscription(ReceiveOn)", "value(1)", "failure(boom)"])
        #expect(upstream.subscription?.cancelCount == 0)
    }

    @Test func receiveOnKeepsTheSubscriberUntilThePendingActionRan() {
        let scheduler = RecordingScheduler()
        weak var weakProbe: Probe?
        do {
            let upstream = TestPublisher<Int, TestError>()
            let probe = Probe()
            weakProbe = probe
            upstream.receive(on: scheduler).subscribe(probe)
            upstream.send(42)
            probe.subscription?.cancel()
            probe.subscription = nil
        }
        #expect(weakProbe != nil) // held by the scheduled action, as in Combine
        scheduler.run()
        #expect(weakProbe == nil)
    }

    @Test func receiveOnCompletedPipelineIsReleasedOnceDelivered() {
        let scheduler = RecordingScheduler()
        weak var weakProbe: Probe?
        do {
            let upstream = TestPublisher<Int, TestError>()
            let probe = Probe()
            weakProbe = probe
            upstream.receive(on: scheduler).subscribe(probe)
            upstream.send(completion: .finished)
            probe.subscription = nil
        }
        #expect(weakProbe != nil)
        scheduler.run()
        #expect(weakProbe == nil) // released right after delivery
    }

    @Test func receiveOnOnImmediateSchedulerDeliversNestedValuesInOrder() {
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(onValue: { value in
            if value < 3 { upstream.send(value + 1) }
        })
        upstream.receive(on: ImmediateScheduler.shared).subscribe(tracker)
        upstream.send(0)
        #expect(tracker.values == [0, 1, 2, 3])
    }

    @Test func receiveOnDebugOutput() throws {
        let catcher = Catcher<Int, Never>(initialDemand: .none)
        Just(1).receive(on: RecordingScheduler()).subscribe(catcher)
        let subscription = try #require(catcher.subscription)
        #expect(String(describing: subscription) == "ReceiveOn")
        #expect(Mirror(reflecting: subscription).children.isEmpty)
        #expect((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
                == "ReceiveOn")
    }

    // MARK: subscribe(on:)

    @Test func subscribeOnSchedulesRequestsIncludingNone() {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        upstream.subscribe(on: scheduler, options: options).subscribe(tracker)
        #expect(scheduler.calls == [.schedule(options: true)])
        scheduler.run()
        tracker.request(.none)
        tracker.request(.max(2))
        #expect(scheduler.calls == [.schedule(options: true), .schedule(options: true), .schedule(options: true)])
        scheduler.run()
        #expect(upstream.subscription?.requested == [.none, .max(2)])
        tracker.cancel()
        #expect(upstream.subscription?.cancelCount == 0)
        scheduler.run()
        #expect(upstream.subscription?.cancelCount == 1)
        #expect(tracker.subscriptionNames == ["SubscribeOn"])
    }

    // MARK: delay

    @Test func delaySchedulesEachEventWithScheduleAfterNoBatching() {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(demandPerValue: { _ in .max(12) })
        upstream.delay(for: .nanoseconds(200), tolerance: .nanoseconds(5), scheduler: scheduler, options: options)
            .subscribe(tracker)
        #expect(scheduler.calls.isEmpty)
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        let each: [Call] = [.now, .scheduleAfter(200, tolerance: 5, options: true)]
        #expect(scheduler.calls == each + each + each)
        scheduler.advance(to: 199)
        #expect(tracker.values == [])
        scheduler.advance(to: 200)
        #expect(tracker.values == [1, 2, 3])
        #expect(upstream.subscription?.requested == [.unlimited, .max(12), .max(12), .max(12)])
        scheduler.clear()
        upstream.send(completion: .finished) // at 200: due at 400
        #expect(scheduler.calls == [.now, .scheduleAfter(400, tolerance: 5, options: true)])
        scheduler.advance(to: 400)
        #expect(tracker.history.last == "finished")
    }

    @Test func delayReadsTheMinimumToleranceOnceWhenNoneIsGiven() {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let delayed = upstream.delay(for: .nanoseconds(3), scheduler: scheduler)
        #expect(scheduler.calls == [.minimumTolerance])
        let tracker = TrackingSubscriber<Int, TestError>()
        delayed.subscribe(tracker)
        upstream.send(1)
        #expect(scheduler.calls == [.minimumTolerance, .now, .scheduleAfter(3, tolerance: 7, options: false)])
    }

    @Test func delayForwardsRequestNone() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        upstream.delay(for: .nanoseconds(1), scheduler: RecordingScheduler()).subscribe(tracker)
        tracker.request(.none)
        #expect(upstream.subscription?.requested == [.none])
    }

    @Test func delayKeepsTheSubscriberUntilThePendingActionRan() {
        let scheduler = RecordingScheduler()
        weak var weakProbe: Probe?
        var delivered: [Int] = [0]
        do {
            let upstream = TestPublisher<Int, TestError>()
            let probe = Probe()
            weakProbe = probe
            upstream.delay(for: .nanoseconds(350), scheduler: scheduler).subscribe(probe)
            upstream.send(42)
            probe.subscription?.cancel()
            probe.subscription = nil
        }
        #expect(weakProbe != nil)
        scheduler.advance(to: 349)
        #expect(weakProbe != nil)
        delivered = weakProbe?.values ?? [-1]
        scheduler.advance(to: 350)
        #expect(weakProbe == nil)
        #expect(delivered == [])
    }

    @Test func delayDeliversTheCompletionEvenWhenCancelledAfterIt() {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.delay(for: .nanoseconds(10), scheduler: scheduler).subscribe(tracker)
        upstream.send(1)
        upstream.send(completion: .finished)
        tracker.cancel()
        scheduler.advance(to: 10)
        #expect(tracker.values == [1])
        #expect(tracker.completion == .finished)
    }

    @Test func delayDoesNotCustomiseItsDebugOutput() throws {
        let catcher = Catcher<Int, Never>(initialDemand: .none)
        Just(1).delay(for: .nanoseconds(1), scheduler: RecordingScheduler()).subscribe(catcher)
        let subscription = try #require(catcher.subscription)
        #expect(!(subscription is CustomStringConvertible))
        #expect(!(subscription is CustomReflectable))
        #expect(!(subscription is CustomPlaygroundDisplayConvertible))
    }

    // MARK: debounce

    @Test func debounceSchedulesACancellableActionPerValue() {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .max(1))
        upstream.debounce(for: .nanoseconds(13), scheduler: scheduler, options: options).subscribe(tracker)
        #expect(upstream.subscription?.requested == [.unlimited])
        upstream.send(1)
        scheduler.advance(to: 4)
        upstream.send(2)
        scheduler.advance(to: 9)
        upstream.send(3)
        let expected: [Call] = [
            .now, .minimumTolerance, .scheduleAfterInterval(13, interval: 13, tolerance: 7, options: true),
            .now, .minimumTolerance, .scheduleAfterInterval(17, interval: 13, tolerance: 7, options: true),
            .now, .minimumTolerance, .scheduleAfterInterval(22, interval: 13, tolerance: 7, options: true),
        ]
        #expect(scheduler.calls == expected)
        #expect(scheduler.cancelCount == 2) // each new value cancels the previous action
        scheduler.advance(to: 200)
        #expect(tracker.values == [3])
        #expect(scheduler.cancelCount == 3) // the action that fired is cancelled too
        upstream.send(completion: .finished)
        // Combine schedules the completion without the options.
        #expect(scheduler.calls == expected + [.schedule(options: false)])
        #expect(tracker.completion == nil)
        scheduler.run()
        #expect(tracker.completion == .finished)
    }

    // OpenCombine's `DebounceTests.testBadScheduler` (written against
    // Combine): with a cancellable that does nothing, the value goes out once.
    @Test func debounceDeliversOnceWhenTheSchedulerKeepsRepeating() {
        let scheduler = RecordingScheduler(cancelStopsRepeats: false)
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.debounce(for: .nanoseconds(13), scheduler: scheduler).subscribe(tracker)
        upstream.send(1)
        scheduler.advance(to: 2)
        upstream.send(42)
        scheduler.advance(to: 100) // the action for 42 fires at 15, 28, 41, ...
        #expect(tracker.values == [42])
    }

    @Test func debounceDropsAValueDueWithoutDemandForGood() {
        let scheduler = RecordingScheduler(cancelStopsRepeats: false)
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        upstream.debounce(for: .nanoseconds(5), scheduler: scheduler).subscribe(tracker)
        upstream.send(1)
        scheduler.advance(to: 7) // due at 5 with no demand: dropped
        tracker.request(.max(1))
        scheduler.advance(to: 50) // the repeats do not bring it back
        #expect(tracker.values == [])
    }

    @Test func debounceAcceptsRequestNone() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        let scheduler = RecordingScheduler()
        upstream.debounce(for: .nanoseconds(5), scheduler: scheduler).subscribe(tracker)
        tracker.request(.none)
        upstream.send(1)
        scheduler.advance(to: 10)
        #expect(tracker.values == []) // no demand: dropped
        tracker.request(.max(1))
        upstream.send(2)
        scheduler.advance(to: 20)
        #expect(tracker.values == [2])
    }

    @Test func debounceCancelAfterTheUpstreamCompletedIsIgnored() {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.debounce(for: .nanoseconds(5), scheduler: scheduler).subscribe(tracker)
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        tracker.cancel()
        scheduler.advance(to: 100)
        #expect(tracker.history == ["subscription(Debounce)", "failure(boom)"])
        #expect(upstream.subscription?.cancelCount == 0)
    }

    @Test func debounceCancelReleasesThePipeline() {
        let scheduler = RecordingScheduler()
        weak var weakProbe: Probe?
        do {
            let upstream = TestPublisher<Int, TestError>()
            let probe = Probe()
            weakProbe = probe
            upstream.debounce(for: .nanoseconds(5), scheduler: scheduler).subscribe(probe)
            upstream.send(1)
            probe.subscription?.cancel()
            probe.subscription = nil
        }
        #expect(weakProbe == nil) // the pending action was cancelled
        #expect(scheduler.cancelCount == 1)
    }

    @Test func debounceDebugOutput() throws {
        let upstream = TestPublisher<Int, TestError>()
        let catcher = Catcher<Int, TestError>(initialDemand: .max(4))
        upstream.debounce(for: .nanoseconds(5), scheduler: RecordingScheduler()).subscribe(catcher)
        upstream.send(9)
        let subscription = try #require(catcher.subscription)
        #expect(String(describing: subscription) == "Debounce")
        let children = Array(Mirror(reflecting: subscription).children)
        #expect(children.map(\.label) == ["downstream", "downstreamDemand", "currentValue"])
        #expect(children.dropFirst().first?.value as? Subscribers.Demand == .max(4))
        #expect(children.last.map { String(describing: $0.value) } == "Optional(9)")
    }

    // MARK: throttle

    @Test func throttleReadsTheClockAndSchedulesAsCombine() {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.throttle(for: .nanoseconds(100), scheduler: scheduler, latest: true).subscribe(tracker)
        // Once when the operator's subscriber is made, once at subscription.
        #expect(scheduler.calls == [.now, .now])
        #expect(upstream.subscription?.requested == [.unlimited])
        upstream.send(1)
        #expect(scheduler.calls == [.now, .now, .now, .schedule(options: false)])
        upstream.send(2) // replaces the pending value; schedules nothing
        #expect(scheduler.calls == [.now, .now, .now, .schedule(options: false), .now])
        scheduler.run() // emits 2 and reads the clock for the emission time
        #expect(tracker.values == [2])
        scheduler.clear()
        scheduler.advance(to: 30)
        upstream.send(3)
        #expect(scheduler.calls == [.now, .minimumTolerance, .scheduleAfter(100, tolerance: 7, options: false)])
        upstream.send(completion: .finished)
        scheduler.advance(to: 100)
        #expect(tracker.history == ["subscription(Throttle)", "value(2)", "value(3)", "finished"])
    }

    @Test func throttleAcceptsRequestNone() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        let scheduler = RecordingScheduler()
        upstream.throttle(for: .nanoseconds(5), scheduler: scheduler, latest: false).subscribe(tracker)
        tracker.request(.none)
        upstream.send(1)
        scheduler.run()
        #expect(tracker.values == [])
    }

    @Test func throttleCancelReleasesTheSubscriberAtOnce() {
        let scheduler = RecordingScheduler()
        weak var weakProbe: Probe?
        do {
            let upstream = TestPublisher<Int, TestError>()
            let probe = Probe()
            weakProbe = probe
            upstream.throttle(for: .nanoseconds(5), scheduler: scheduler, latest: true).subscribe(probe)
            upstream.send(1) // an emission is scheduled; it holds the operator weakly
            probe.subscription?.cancel()
            probe.subscription = nil
        }
        #expect(weakProbe == nil)
        scheduler.run()
    }

    @Test func throttleCancelBeforeTheSubscriptionCancelsItWhenItArrives() throws {
        // A publisher that keeps the operator's subscriber without
        // subscribing it, so the test can cancel it first.
        final class Holder: Publisher, @unchecked Sendable {
            typealias Output = Int
            typealias Failure = Never
            var subscriber: AnyObject?
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
                self.subscriber = subscriber as AnyObject
            }
        }
        let holder = Holder()
        holder.throttle(for: .nanoseconds(5), scheduler: RecordingScheduler(), latest: true)
            .subscribe(TrackingSubscriber<Int, Never>())
        let inner = try #require(holder.subscriber)
        try #require(inner as? any Subscription).cancel()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = try #require(inner as? any Subscriber<Int, Never>)
        upstream.subscribe(AnySubscriber(subscriber))
        #expect(upstream.subscription?.cancelCount == 1)
    }

    @Test func throttleDebugOutput() throws {
        let catcher = Catcher<Int, Never>(initialDemand: .none)
        Just(1).throttle(for: .nanoseconds(5), scheduler: RecordingScheduler(), latest: true).subscribe(catcher)
        let subscription = try #require(catcher.subscription)
        #expect(String(describing: subscription) == "Throttle")
        #expect(Mirror(reflecting: subscription).children.isEmpty)
    }

    // MARK: timeout

    @Test func timeoutRestartsItsClockAsCombine() {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .max(2), demandPerValue: { _ in .max(1) })
        upstream.timeout(.nanoseconds(13), scheduler: scheduler, options: options, customError: { .boom })
            .subscribe(tracker)
        let clock = { (at: Int) -> [Call] in
            [.now, .minimumTolerance, .scheduleAfterInterval(at, interval: 13, tolerance: 7, options: true)]
        }
        // At subscription and at the first request.
        #expect(scheduler.calls == clock(13) + clock(13))
        scheduler.advance(to: 10)
        upstream.send(1)
        #expect(tracker.values == [])
        scheduler.advance(to: 11)
        upstream.send(2)
        scheduler.advance(to: 12)
        #expect(tracker.values == [1, 2])
        #expect(scheduler.calls == clock(13) + clock(13) + clock(23) + [.schedule(options: true)]
                + clock(24) + [.schedule(options: true)])
        scheduler.advance(to: 200)
        #expect(tracker.history == ["subscription(Timeout)", "value(1)", "value(2)", "failure(boom)"])
        #expect(upstream.subscription?.requested == [.max(2), .max(1), .max(1)])
        #expect(upstream.subscription?.cancelCount == 1)
        // Nothing more after the timeout.
        upstream.send(completion: .finished)
        scheduler.advance(to: 400)
        #expect(tracker.completionCount == 1)
    }

    @Test func timeoutForwardsRequestNone() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        upstream.timeout(.nanoseconds(13), scheduler: RecordingScheduler()).subscribe(tracker)
        tracker.request(.none)
        #expect(upstream.subscription?.requested == [.none])
    }

    @Test func timeoutCompletionIsScheduledAndCancelsTheClock() {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.timeout(.nanoseconds(13), scheduler: scheduler).subscribe(tracker)
        scheduler.clear()
        upstream.send(completion: .finished)
        #expect(scheduler.calls == [.schedule(options: false)])
        #expect(scheduler.cancelCount == 2) // both clocks (subscription, first request)
        scheduler.advance(to: 100)
        #expect(tracker.history == ["subscription(Timeout)", "finished"])
    }

    @Test func timeoutKeepsTheSubscriberUntilThePendingActionRan() {
        let scheduler = RecordingScheduler()
        weak var weakProbe: Probe?
        do {
            let upstream = TestPublisher<Int, TestError>()
            let probe = Probe()
            weakProbe = probe
            upstream.timeout(.nanoseconds(13), scheduler: scheduler).subscribe(probe)
            upstream.send(1)
            probe.subscription?.cancel()
            probe.subscription = nil
        }
        #expect(weakProbe != nil)
        scheduler.run()
        #expect(weakProbe == nil)
    }

    @Test func timeoutDebugOutput() throws {
        let catcher = Catcher<Int, Never>(initialDemand: .none)
        Empty<Int, Never>(completeImmediately: false).timeout(.nanoseconds(5), scheduler: RecordingScheduler())
            .subscribe(catcher)
        let subscription = try #require(catcher.subscription)
        #expect(String(describing: subscription) == "Timeout")
        #expect(Mirror(reflecting: subscription).children.isEmpty)
    }

    // MARK: collect(.byTime)

    @Test func collectByTimeAcceptsRequestNone() {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<[Int], TestError>(initialDemand: .none)
        upstream.collect(.byTimeOrCount(scheduler, .nanoseconds(10), 2)).subscribe(tracker)
        tracker.request(.none)
        #expect(upstream.subscription?.requested == [])
        tracker.request(.max(1))
        #expect(upstream.subscription?.requested == [.max(2)])
        upstream.send(1)
        upstream.send(2)
        scheduler.run()
        #expect(tracker.values == [[1, 2]])
    }

    // MARK: measureInterval

    @Test func measureIntervalRequestsTheSubscribersDemandUpstream() {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<DispatchQueue.SchedulerTimeType.Stride, TestError>(
            initialDemand: .none, demandPerValue: { _ in .max(1) })
        upstream.measureInterval(using: scheduler).subscribe(tracker)
        #expect(scheduler.calls == [.now])
        scheduler.advance(to: 14)
        #expect(upstream.send(1) == .none)
        scheduler.advance(to: 17)
        #expect(upstream.send(2) == .none)
        tracker.request(.none)
        #expect(tracker.values.map(\.magnitude) == [14, 3])
        #expect(upstream.subscription?.requested == [.max(1), .max(1), .none])
        #expect(scheduler.calls == [.now, .now, .now])
        #expect(tracker.subscriptionNames == ["MeasureInterval"])
    }

    // OpenCombine's `MeasureIntervalTests.testCancelAlreadyCancelled`
    // (written against Combine): after cancel, the scheduler history stays
    // `[.now]` while values and a completion still arrive.
    @Test func measureIntervalReadsNowNoMoreAfterCancel() {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<DispatchQueue.SchedulerTimeType.Stride, TestError>(initialDemand: .none)
        upstream.measureInterval(using: scheduler).subscribe(tracker)
        tracker.cancel()
        tracker.request(.max(1000))
        tracker.cancel()
        #expect(upstream.send(1000) == .none)
        upstream.send(completion: .failure(.boom))
        #expect(scheduler.calls == [.now])
        #expect(tracker.values.isEmpty)
        #expect(upstream.subscription?.requested == [])
        #expect(upstream.subscription?.cancelCount == 1)
    }

    @Test func measureIntervalReadsNowNoMoreAfterCompletion() {
        let scheduler = RecordingScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<DispatchQueue.SchedulerTimeType.Stride, TestError>()
        upstream.measureInterval(using: scheduler).subscribe(tracker)
        upstream.send(completion: .finished)
        #expect(upstream.send(1) == .none)
        #expect(scheduler.calls == [.now])
        #expect(tracker.values.isEmpty)
    }
}
