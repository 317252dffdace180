import Synchronization

extension Publisher {
    /// Measures and emits the time interval between events received from an
    /// upstream publisher.
    ///
    /// The first value is measured from the moment of subscription; each
    /// later one from the previous value. Intervals are read from
    /// `scheduler.now`, on the thread the upstream delivers on; values are
    /// not moved to the scheduler. Demand passes straight through; demand
    /// the subscriber returns for a value is requested from the upstream
    /// (as Combine does), not returned to it.
    ///
    /// ```swift
    /// let scheduler = DispatchQueue.test
    /// let subject = PassthroughSubject<Void, Never>()
    /// let c = subject.measureInterval(using: scheduler).sink { print($0.magnitude) }
    /// scheduler.advance(by: .milliseconds(5)); subject.send()
    /// // Prints: "5000000"
    /// ```
    @inlinable
    public func measureInterval<S: Scheduler>(using scheduler: S, options: S.SchedulerOptions? = nil)
        -> Publishers.MeasureInterval<Self, S>
    {
        Publishers.MeasureInterval(upstream: self, scheduler: scheduler)
    }
}

extension Publishers {
    /// A publisher that measures and emits the time interval between events
    /// received from an upstream publisher.
    ///
    /// ```swift
    /// let p = Publishers.MeasureInterval(upstream: subject, scheduler: DispatchQueue.main)
    /// ```
    public struct MeasureInterval<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The interval since the previous event, in the scheduler's stride.
        public typealias Output = Context.SchedulerTimeType.Stride
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The scheduler used for tracking the timing of events.
        public let scheduler: Context

        /// Creates a publisher that measures the intervals between
        /// `upstream`'s events.
        @inlinable
        public init(upstream: Upstream, scheduler: Context) {
            self.upstream = upstream
            self.scheduler = scheduler
        }

        /// Subscribes an inner subscriber to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = MeasureIntervalInner<Upstream.Output, S, Context>(
                downstream: subscriber, scheduler: scheduler)
            upstream.receive(subscriber: inner)
        }
    }
}

/// Replaces each value by the time since the previous event.
@usableFromInline
internal final class MeasureIntervalInner<Input, Downstream: Subscriber, Context: Scheduler>:
    Subscriber, Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == Context.SchedulerTimeType.Stride
{
        @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline
    internal struct State {
        @usableFromInline var status: SubscriptionStatus = .awaitingSubscription
        /// When the subscription arrived, then when the last value did.
        @usableFromInline var last: Context.SchedulerTimeType?

        @inlinable
        init() {}
    }

    @usableFromInline let downstream: Downstream
    @usableFromInline let scheduler: Context
    @usableFromInline let state = Locked(State())

    @inlinable
    init(downstream: Downstream, scheduler: Context) {
        self.downstream = downstream
        self.scheduler = scheduler
    }

    @inlinable
    func receive(subscription: any Subscription) {
        // `now` is read under the lock, and only when it is needed, as
        // Combine does: a scheduler sees no read for a second subscription,
        // a value after cancel or completion (the scheduler is not the
        // upstream or the downstream, and reading its clock cannot re-enter
        // this subscription).
        let accepted = state.withLock { s -> Bool in
            guard case .awaitingSubscription = s.status else { return false }
            s.status = .subscribed(subscription)
            s.last = scheduler.now
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
        let taken = state.withLock {
            s -> (Context.SchedulerTimeType, Context.SchedulerTimeType, any Subscription)? in
            guard case .subscribed(let subscription) = s.status, let last = s.last else {
                return nil
            }
            let now = scheduler.now
            s.last = now
            return (last, now, subscription)
        }
        guard let (previous, now, subscription) = taken else { return .none }
        // Combine asks the upstream for the subscriber's new demand with
        // `request` and returns `.none`.
        let more = downstream.receive(previous.distance(to: now))
        if more.rawValue > 0 { subscription.request(more) }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        let active = state.withLock { s -> Bool in
            guard s.status.isSubscribed else { return false }
            s.status = .terminal
            s.last = nil
            return true
        }
        if active { downstream.receive(completion: completion) }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        // `.none` is forwarded too, as Combine does.
        state.withLock { $0.status.subscription }?.request(demand)
    }

    @inlinable
    func cancel() {
        let subscription = state.withLock { s -> (any Subscription)? in
            guard case .subscribed(let subscription) = s.status else { return nil }
            s.status = .terminal
            s.last = nil
            return subscription
        }
        subscription?.cancel()
    }

    @usableFromInline var description: String { "MeasureInterval" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}
