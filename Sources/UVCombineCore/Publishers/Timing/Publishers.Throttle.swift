import Synchronization

extension Publisher {
    /// Publishes either the most-recent or first element published by the
    /// upstream publisher in the specified time interval.
    ///
    /// Semantics, as in Combine:
    /// - The first value is delivered at once (at the scheduler's next
    ///   opportunity). Later ones go out at most once per `interval`,
    ///   measured from the previous delivery.
    /// - While a delivery is scheduled, `latest: true` replaces its value
    ///   with each newer one; `latest: false` keeps the first and drops the
    ///   rest.
    /// - Demand is checked when a value arrives: with no outstanding demand
    ///   the value is dropped (one unit of demand is reserved when a
    ///   delivery is scheduled). The upstream is asked for `.unlimited`.
    /// - A completion waits for a scheduled delivery and follows it;
    ///   otherwise it is delivered at the scheduler's next opportunity.
    /// - Scheduler calls are Combine's: `now` when the operator subscribes,
    ///   receives its subscription, a value or a completion, and when it
    ///   delivers a value; `schedule(options:)` for a delivery due at once,
    ///   `schedule(after:)` (with `minimumTolerance`) otherwise. A scheduled
    ///   delivery holds the operator weakly, and `cancel()` releases the
    ///   subscriber and the upstream subscription at once.
    ///
    /// ```swift
    /// let c = scrollOffsets
    ///     .throttle(for: .milliseconds(100), scheduler: loop, latest: true)
    ///     .sink { offset in updateHeader(offset) }
    /// ```
    @inlinable
    public func throttle<S: Scheduler>(for interval: S.SchedulerTimeType.Stride,
                                       scheduler: S,
                                       latest: Bool) -> Publishers.Throttle<Self, S> {
        Publishers.Throttle(upstream: self, interval: interval, scheduler: scheduler, latest: latest)
    }
}

extension Publishers {
    /// A publisher that publishes either the most-recent or first element
    /// published by the upstream publisher in a specified time interval.
    ///
    /// ```swift
    /// let p = Publishers.Throttle(upstream: subject, interval: .seconds(1),
    ///                             scheduler: DispatchQueue.main, latest: false)
    /// ```
    public struct Throttle<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The interval in which to find and emit the most recent element.
        public let interval: Context.SchedulerTimeType.Stride
        /// The scheduler on which to publish elements.
        public let scheduler: Context
        /// A Boolean value indicating whether to publish the most recent element.
        public let latest: Bool

        /// Creates a throttling publisher.
        @inlinable
        public init(upstream: Upstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context,
                    latest: Bool) {
            self.upstream = upstream
            self.interval = interval
            self.scheduler = scheduler
            self.latest = latest
        }

        /// Subscribes an inner subscriber to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = ThrottleInner<S, Context>(
                downstream: subscriber, interval: interval, scheduler: scheduler, latest: latest)
            upstream.receive(subscriber: inner)
        }
    }
}

/// Holds at most one scheduled delivery (a value, a completion, or both).
@usableFromInline
internal final class ThrottleInner<Downstream: Subscriber, Context: Scheduler>:
    Subscriber, Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure
    @usableFromInline typealias Time = Context.SchedulerTimeType

    @usableFromInline
    internal struct State {
        @usableFromInline var status: SubscriptionStatus = .awaitingSubscription
        /// Released when the operator terminates (completion delivered, or
        /// cancel), as Combine's throttle does.
        @usableFromInline var downstream: Downstream?
        @usableFromInline var demand: Subscribers.Demand = .none
        @usableFromInline var pendingValue: Input?
        @usableFromInline var pendingCompletion: Subscribers.Completion<Failure>?
        @usableFromInline var lastEmission: Time?

        @inlinable
        init(downstream: Downstream) {
            self.downstream = downstream
        }

        @inlinable
        var hasScheduledOutput: Bool { pendingValue != nil || pendingCompletion != nil }
    }

    @usableFromInline let interval: Context.SchedulerTimeType.Stride
    @usableFromInline let scheduler: Context
    @usableFromInline let latest: Bool
    @usableFromInline let state: Locked<State>
    /// Formed once in `init`; captures `self` weakly, as Combine's
    /// scheduled emission does. Written only there.
    @usableFromInline internal private(set) var emitAction: () -> Void = {}

    @inlinable
    init(downstream: Downstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context,
         latest: Bool) {
        state = Locked(State(downstream: downstream))
        self.interval = interval
        self.scheduler = scheduler
        self.latest = latest
        // Combine reads the clock when it creates the subscriber.
        _ = scheduler.now
        emitAction = { [weak self] in self?.emit() }
    }

    @inlinable
    func receive(subscription: any Subscription) {
        let downstream = state.withLock { s -> Downstream? in
            guard case .awaitingSubscription = s.status, let downstream = s.downstream else {
                return nil
            }
            s.status = .subscribed(subscription)
            return downstream
        }
        guard let downstream = downstream else {
            subscription.cancel()
            return
        }
        _ = scheduler.now // as Combine, which records the time here
        subscription.request(.unlimited)
        downstream.receive(subscription: self)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        guard state.withLock({ $0.status.isSubscribed }) else { return .none }
        let now = scheduler.now
        let emission = state.withLock { s -> Time? in
            guard s.status.isSubscribed, s.demand.rawValue > 0 else { return nil }
            if s.hasScheduledOutput {
                if latest { s.pendingValue = input }
                return nil
            }
            let earliest = s.lastEmission.map { Swift.max(now, $0.advanced(by: interval)) } ?? now
            if !s.demand.isUnlimited { s.demand -= 1 }
            s.pendingValue = input
            return earliest
        }
        if let at = emission {
            if at == now {
                scheduler.schedule(emitAction)
            } else {
                scheduler.schedule(after: at, emitAction)
            }
        }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        guard state.withLock({ $0.status.isSubscribed }) else { return }
        _ = scheduler.now // as Combine, which records the time here
        let scheduleNow = state.withLock { s -> Bool in
            guard case .subscribed(let subscription) = s.status else { return false }
            s.status = .pendingTerminal(subscription)
            if s.hasScheduledOutput {
                if s.pendingCompletion == nil { s.pendingCompletion = completion }
                return false // follows the scheduled value
            }
            s.pendingCompletion = completion
            return true
        }
        if scheduleNow { scheduler.schedule(emitAction) }
    }

    @inlinable
    func emit() {
        // Combine reads the clock only when it emits a value without a
        // completion (the time of the last emission).
        let readsClock = state.withLock { s -> Bool in
            s.pendingValue != nil && s.pendingCompletion == nil
        }
        let now: Time? = readsClock ? scheduler.now : nil
        let taken = state.withLock { s -> (Downstream, Input?, Subscribers.Completion<Failure>?)? in
            guard s.status.subscription != nil, let downstream = s.downstream else {
                return nil
            }
            let value = s.pendingValue
            let completion = s.pendingCompletion
            s.pendingValue = nil
            s.pendingCompletion = nil
            if value != nil, completion == nil, let now { s.lastEmission = now }
            if completion != nil {
                s.status = .terminal
                s.downstream = nil
            }
            return (downstream, value, completion)
        }
        guard let (downstream, value, completion) = taken else { return }
        let more = value.map { downstream.receive($0) } ?? .none
        if let completion { downstream.receive(completion: completion) }
        if more.rawValue > 0 {
            state.withLock { $0.demand += more }
        }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        guard demand.rawValue > 0 else { return } // `.none` is accepted and ignored, as in Combine
        state.withLock { s in
            if s.status.isSubscribed { s.demand += demand }
        }
    }

    @inlinable
    func cancel() {
        let taken = state.withLock { s -> ((any Subscription)?, Downstream?) in
            let upstream = s.status.subscription
            let downstream = s.downstream
            s.status = .terminal
            s.downstream = nil
            s.pendingValue = nil
            s.pendingCompletion = nil
            return (upstream, downstream)
        }
        taken.0?.cancel()
        // taken.1 (the subscriber) is released here, outside the lock.
    }

    @usableFromInline var description: String { "Throttle" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}
