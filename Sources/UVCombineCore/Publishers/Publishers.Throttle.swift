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
        @usableFromInline var demand: Subscribers.Demand = .none
        @usableFromInline var pendingValue: Input?
        @usableFromInline var pendingCompletion: Subscribers.Completion<Failure>?
        @usableFromInline var lastEmission: Time?
        /// Holds `self` while a delivery is scheduled (the action
        /// captures it weakly).
        @usableFromInline var keepAlive: AnyObject?

        @inlinable
        init() {}

        @inlinable
        var hasScheduledOutput: Bool { pendingValue != nil || pendingCompletion != nil }
    }

    @usableFromInline let downstream: Downstream
    @usableFromInline let interval: Context.SchedulerTimeType.Stride
    @usableFromInline let scheduler: Context
    @usableFromInline let latest: Bool
    @usableFromInline let state = Mutex(UncheckedSendable(State()))
    /// Formed once in `init`; captures `self` weakly. Written only there.
    @usableFromInline internal private(set) var emitAction: () -> Void = {}

    @inlinable
    init(downstream: Downstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context,
         latest: Bool) {
        self.downstream = downstream
        self.interval = interval
        self.scheduler = scheduler
        self.latest = latest
        emitAction = { [weak self] in self?.emit() }
    }

    @inlinable
    func receive(subscription: any Subscription) {
        let accepted = state.withLock { s -> Bool in
            guard case .awaitingSubscription = s.value.status else { return false }
            s.value.status = .subscribed(subscription)
            return true
        }
        guard accepted else {
            subscription.cancel()
            return
        }
        subscription.request(.unlimited)
        downstream.receive(subscription: self)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        let now = scheduler.now
        let emission = state.withLock { s -> UncheckedSendable<Time?> in
            guard s.value.status.isSubscribed, s.value.demand.rawValue > 0 else { return UncheckedSendable(nil) }
            if s.value.hasScheduledOutput {
                if latest { s.value.pendingValue = input }
                return UncheckedSendable(nil)
            }
            let earliest = s.value.lastEmission.map { Swift.max(now, $0.advanced(by: interval)) } ?? now
            if !s.value.demand.isUnlimited { s.value.demand -= 1 }
            s.value.pendingValue = input
            s.value.keepAlive = self
            return UncheckedSendable(earliest)
        }
        if let at = emission.value {
            if at <= now {
                scheduler.schedule(emitAction)
            } else {
                scheduler.schedule(after: at, emitAction)
            }
        }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        let scheduleNow = state.withLock { s -> Bool in
            guard case .subscribed(let subscription) = s.value.status else { return false }
            s.value.status = .pendingTerminal(subscription)
            let waiting = s.value.hasScheduledOutput
            s.value.pendingCompletion = completion
            if waiting { return false } // follows the scheduled value
            s.value.keepAlive = self
            return true
        }
        if scheduleNow { scheduler.schedule(emitAction) }
    }

    @inlinable
    func emit() {
        let now = scheduler.now
        let taken = state.withLock { s -> UncheckedSendable<(Input?, Subscribers.Completion<Failure>?, AnyObject?)> in
            guard !s.value.status.isTerminal else {
                let owner = s.value.keepAlive
                s.value.keepAlive = nil
                return UncheckedSendable((nil, nil, owner))
            }
            let value = s.value.pendingValue
            let completion = s.value.pendingCompletion
            s.value.pendingValue = nil
            s.value.pendingCompletion = nil
            if value != nil { s.value.lastEmission = now }
            if completion != nil { s.value.status = .terminal }
            let owner = s.value.keepAlive
            s.value.keepAlive = nil
            return UncheckedSendable((value, completion, owner))
        }
        let more = taken.value.0.map { downstream.receive($0) } ?? .none
        if let completion = taken.value.1 {
            downstream.receive(completion: completion)
        } else if more.rawValue > 0 {
            state.withLock { s in
                if s.value.status.isSubscribed { s.value.demand += more }
            }
        }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        state.withLock { s in
            if s.value.status.isSubscribed { s.value.demand += demand }
        }
    }

    @inlinable
    func cancel() {
        let taken = state.withLock { s -> UncheckedSendable<((any Subscription)?, AnyObject?)> in
            let upstream = s.value.status.subscription
            if s.value.status.isTerminal { return UncheckedSendable((nil, nil)) }
            let upstreamToCancel: (any Subscription)? = s.value.status.isSubscribed ? upstream : nil
            s.value.status = .terminal
            s.value.pendingValue = nil
            s.value.pendingCompletion = nil
            let owner = s.value.keepAlive
            s.value.keepAlive = nil
            return UncheckedSendable((upstreamToCancel, owner))
        }
        taken.value.0?.cancel()
    }

    @usableFromInline var description: String { "Throttle" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}
