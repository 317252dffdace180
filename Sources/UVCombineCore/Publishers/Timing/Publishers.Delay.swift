import Synchronization

extension Publisher {
    /// Delays delivery of all output to the downstream receiver by a
    /// specified amount of time on a particular scheduler.
    ///
    /// Every value and the completion (finished or failed) reach the
    /// subscriber `interval` after the upstream sent them, on `scheduler`,
    /// so their spacing is preserved. The subscription and demand pass
    /// through synchronously; demand the subscriber returns when a delayed
    /// value arrives goes upstream then.
    ///
    /// As in Combine, each value and the completion costs one
    /// `schedule(after:tolerance:options:)` call (at `now + interval`, so
    /// equal deadlines are not merged), the pipeline stays alive until
    /// every scheduled action has run, and a `cancel()` after the upstream
    /// completed is ignored: the remaining values and the completion still
    /// arrive. Scheduled actions are not unscheduled by `cancel()`; they run
    /// at their deadline and deliver nothing.
    ///
    /// Cost: pending events wait in a ring buffer and every action is the
    /// same pre-formed closure, so the operator allocates nothing per value
    /// once warm beyond what the scheduler's `schedule(after:)` costs.
    ///
    /// ```swift
    /// let c = subject
    ///     .delay(for: .seconds(1), scheduler: loop)
    ///     .sink { print($0) } // each value one second after it was sent
    /// ```
    ///
    /// - Parameters:
    ///   - interval: The amount of time to delay.
    ///   - tolerance: The allowed tolerance in firing delayed events;
    ///     `nil` means the scheduler's minimum tolerance.
    ///   - scheduler: The scheduler to deliver the delayed events.
    ///   - options: Options relevant to the scheduler's behavior.
    @inlinable
    public func delay<S: Scheduler>(for interval: S.SchedulerTimeType.Stride,
                                    tolerance: S.SchedulerTimeType.Stride? = nil,
                                    scheduler: S,
                                    options: S.SchedulerOptions? = nil) -> Publishers.Delay<Self, S> {
        Publishers.Delay(upstream: self, interval: interval, tolerance: tolerance ?? scheduler.minimumTolerance,
                         scheduler: scheduler, options: options)
    }
}

extension Publishers {
    /// A publisher that delays delivery of elements and completion to the
    /// downstream receiver.
    ///
    /// ```swift
    /// let p = Publishers.Delay(upstream: Just(1), interval: .seconds(1), tolerance: .zero,
    ///                          scheduler: DispatchQueue.main, options: nil)
    /// ```
    public struct Delay<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream
        /// The amount of time to delay.
        public let interval: Context.SchedulerTimeType.Stride
        /// The allowed tolerance in firing delayed events.
        public let tolerance: Context.SchedulerTimeType.Stride
        /// The scheduler to deliver the delayed events.
        public let scheduler: Context
        /// Options relevant to the scheduler's behavior.
        public let options: Context.SchedulerOptions?

        /// Creates a publisher that delays `upstream`'s events by `interval`.
        @inlinable
        public init(upstream: Upstream, interval: Context.SchedulerTimeType.Stride,
                    tolerance: Context.SchedulerTimeType.Stride, scheduler: Context,
                    options: Context.SchedulerOptions? = nil) {
            self.upstream = upstream
            self.interval = interval
            self.tolerance = tolerance
            self.scheduler = scheduler
            self.options = options
        }

        /// Subscribes an inner subscriber to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = DelayInner<S, Context>(
                downstream: subscriber, interval: interval, tolerance: tolerance, scheduler: scheduler,
                options: options)
            upstream.receive(subscriber: inner)
        }
    }
}

/// Schedules one action per value and per completion with
/// `schedule(after:tolerance:options:)`, as Combine does (see
/// ``ScheduledEvents``).
///
/// Combine's rules, kept here: `cancel()` stops the values still on their
/// way, but once the upstream has completed it is ignored, so the values
/// queued before the completion and the completion still arrive; the inner
/// object (and its subscriber) stays alive until every scheduled action has
/// run; `request` (`.none` included) goes straight upstream. Like
/// Combine's, this subscription customises neither its description nor its
/// mirror.
@usableFromInline
internal final class DelayInner<Downstream: Subscriber, Context: Scheduler>: Subscriber, Subscription {
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline
    internal struct State {
        @usableFromInline var status: SubscriptionStatus = .awaitingSubscription
        @usableFromInline var pending = ScheduledEvents<Input, Failure>()

        @inlinable
        init() {}
    }

    @usableFromInline
    internal enum Step {
        case deliver(ScheduledEvent<Input, Failure>)
        case skip
        case done(release: AnyObject?)
    }

    @usableFromInline let downstream: Downstream
    @usableFromInline let interval: Context.SchedulerTimeType.Stride
    @usableFromInline let tolerance: Context.SchedulerTimeType.Stride
    @usableFromInline let scheduler: Context
    @usableFromInline let options: Context.SchedulerOptions?
    @usableFromInline let state = Locked(State())
    /// The action scheduled for every event, formed once in `init`;
    /// captures `self` weakly (``ScheduledEvents`` holds `self` while
    /// actions are pending). Written only there.
    @usableFromInline internal private(set) var deliverAction: () -> Void = {}

    @inlinable
    init(downstream: Downstream, interval: Context.SchedulerTimeType.Stride,
         tolerance: Context.SchedulerTimeType.Stride, scheduler: Context,
         options: Context.SchedulerOptions?) {
        self.downstream = downstream
        self.interval = interval
        self.tolerance = tolerance
        self.scheduler = scheduler
        self.options = options
        deliverAction = { [weak self] in self?.runScheduled() }
    }

    @inlinable
    func receive(subscription: any Subscription) {
        let accepted = state.withLock { s -> Bool in
            guard case .awaitingSubscription = s.status else { return false }
            s.status = .subscribed(subscription)
            return true
        }
        guard accepted else {
            subscription.cancel()
            return
        }
        downstream.receive(subscription: self)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        let schedule = state.withLock { s -> Bool in
            guard s.status.isSubscribed else { return false }
            s.pending.push(.value(input), owner: self)
            return true
        }
        if schedule { scheduleDelivery() }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        let schedule = state.withLock { s -> Bool in
            guard case .subscribed(let subscription) = s.status else { return false }
            s.status = .pendingTerminal(subscription)
            s.pending.push(.completion(completion), owner: self)
            return true
        }
        if schedule { scheduleDelivery() }
    }

    /// Combine's calls for each event: `now`, then one
    /// `schedule(after:tolerance:options:)`.
    @inlinable
    func scheduleDelivery() {
        scheduler.schedule(after: scheduler.now.advanced(by: interval), tolerance: tolerance,
                           options: options, deliverAction)
    }

    /// One scheduled action: delivers its event, and those of actions that
    /// ran meanwhile.
    @inlinable
    func runScheduled() {
        // The first step also counts this action in, under the same lock.
        var starting = true
        while true {
            let step = state.withLock { s -> Step in
                if starting && !s.pending.actionRan() { return .done(release: nil) }
                switch s.pending.next() {
                case .done(let owner):
                    return .done(release: owner)
                case .event(.some(.value(let value))):
                    guard s.status.subscription != nil else { return .skip }
                    return .deliver(.value(value))
                case .event(.some(.completion(let completion))):
                    s.status = .terminal
                    return .deliver(.completion(completion))
                case .event(.none):
                    return .skip
                }
            }
            starting = false
            switch step {
            case .deliver(.value(let value)):
                let more = downstream.receive(value)
                if more.rawValue > 0 {
                    state.withLock { $0.status.subscription }?.request(more)
                }
            case .deliver(.completion(let completion)):
                downstream.receive(completion: completion)
            case .skip:
                continue
            case .done:
                return // the owner, if returned, is released here, outside the lock
            }
        }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        let subscription = state.withLock { s -> (any Subscription)? in
            guard case .subscribed(let subscription) = s.status else { return nil }
            return subscription
        }
        subscription?.request(demand)
    }

    @inlinable
    func cancel() {
        let subscription = state.withLock { s -> (any Subscription)? in
            guard case .subscribed(let subscription) = s.status else { return nil }
            s.status = .terminal
            s.pending.dropPending()
            return subscription
        }
        subscription?.cancel()
    }
}
