import Synchronization

extension Publisher {
    /// Publishes elements only after a specified time interval elapses
    /// between events.
    ///
    /// Each value starts (or restarts) a wait of `dueTime`; a value is
    /// delivered, on `scheduler`, once `dueTime` passes without a newer one.
    /// The upstream is asked for `.unlimited`; a value that falls due while
    /// the subscriber has no demand is dropped.
    ///
    /// Completion: a value still waiting when the upstream completes is
    /// dropped, and the completion is delivered on `scheduler` right away.
    /// That is Combine's behaviour: OpenCombine's `DebounceTests`
    /// (`testFinishBeforeDue`, `testFailBeforeDue`), which it runs against
    /// Apple's Combine in compatibility mode, record only the completion in
    /// that case. (Rx's `debounce` flushes the pending value instead.)
    ///
    /// Scheduler calls, as Combine makes them: each value reads `now` and
    /// `minimumTolerance` and schedules a cancellable action at
    /// `now + dueTime` (`schedule(after:interval:tolerance:options:)`),
    /// cancelling the previous value's; the completion is scheduled with
    /// `schedule(options: nil)`. A pending action holds the operator until
    /// it runs or is cancelled. A `cancel()` after the upstream completed is
    /// ignored (the completion is still delivered), as in Combine.
    ///
    /// ```swift
    /// let c = searchText
    ///     .debounce(for: .milliseconds(300), scheduler: loop)
    ///     .sink { query in search(query) }
    /// ```
    @inlinable
    public func debounce<S: Scheduler>(for dueTime: S.SchedulerTimeType.Stride,
                                       scheduler: S,
                                       options: S.SchedulerOptions? = nil) -> Publishers.Debounce<Self, S> {
        Publishers.Debounce(upstream: self, dueTime: dueTime, scheduler: scheduler, options: options)
    }
}

extension Publishers {
    /// A publisher that publishes elements only after a specified time
    /// interval elapses between events.
    ///
    /// ```swift
    /// let p = Publishers.Debounce(upstream: subject, dueTime: .milliseconds(300),
    ///                             scheduler: DispatchQueue.main, options: nil)
    /// ```
    public struct Debounce<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The amount of time the publisher should wait before publishing an element.
        public let dueTime: Context.SchedulerTimeType.Stride
        /// The scheduler on which this publisher delivers elements.
        public let scheduler: Context
        /// Scheduler options that customize this publisher's delivery of elements.
        public let options: Context.SchedulerOptions?

        /// Creates a debouncing publisher.
        @inlinable
        public init(upstream: Upstream, dueTime: Context.SchedulerTimeType.Stride, scheduler: Context,
                    options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.dueTime = dueTime
            self.scheduler = scheduler
            self.options = options
        }

        /// Subscribes an inner subscriber to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = DebounceInner<S, Context>(
                downstream: subscriber, dueTime: dueTime, scheduler: scheduler, options: options)
            upstream.receive(subscriber: inner)
        }
    }
}

/// Holds the latest value; one cancellable scheduled action per value, the
/// newest one current (`generation`). The generation moves on when the
/// action fires, so a repeat the scheduler failed to cancel finds it stale.
@usableFromInline
internal final class DebounceInner<Downstream: Subscriber, Context: Scheduler>:
    Subscriber, Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure
    @usableFromInline typealias Time = Context.SchedulerTimeType

    @usableFromInline
    internal struct State {
        @usableFromInline var status: SubscriptionStatus = .awaitingSubscription
        @usableFromInline var demand: Subscribers.Demand = .none
        @usableFromInline var latest: Input?
        /// The generation of the latest value; its action is `pending`.
        @usableFromInline var generation: UInt64 = 0
        @usableFromInline var pending: (any Cancellable)?

        @inlinable
        init() {}
    }

    @usableFromInline
    internal enum Due {
        case ignore
        case deliver(Input, cancel: (any Cancellable)?)
        case cancelOnly((any Cancellable)?)
    }

    @usableFromInline let downstream: Downstream
    @usableFromInline let dueTime: Context.SchedulerTimeType.Stride
    @usableFromInline let scheduler: Context
    @usableFromInline let options: Context.SchedulerOptions?
    @usableFromInline let state = Locked(State())

    @inlinable
    init(downstream: Downstream, dueTime: Context.SchedulerTimeType.Stride, scheduler: Context,
         options: Context.SchedulerOptions?) {
        self.downstream = downstream
        self.dueTime = dueTime
        self.scheduler = scheduler
        self.options = options
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
        subscription.request(.unlimited)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        guard state.withLock({ $0.status.isSubscribed }) else { return .none }
        let deadline = scheduler.now.advanced(by: dueTime)
        let started = state.withLock { s -> (UInt64, (any Cancellable)?)? in
            guard s.status.isSubscribed else { return nil }
            s.generation &+= 1
            s.latest = input
            let previous = s.pending
            s.pending = nil
            return (s.generation, previous)
        }
        guard let (generation, previous) = started else { return .none }
        // The action holds `self` strongly until it ran or was cancelled,
        // as Combine's does.
        let action = scheduler.schedule(after: deadline, interval: dueTime, tolerance: scheduler.minimumTolerance,
                                        options: options) {
            self.due(generation)
        }
        let stale = state.withLock { s -> Bool in
            guard s.generation == generation, s.status.isSubscribed else { return true }
            s.pending = action
            return false
        }
        if stale { action.cancel() }
        previous?.cancel()
        return .none
    }

    @inlinable
    func due(_ generation: UInt64) {
        let due = state.withLock { s -> Due in
            guard s.status.isSubscribed, s.generation == generation else {
                return .ignore
            }
            let action = s.pending
            s.pending = nil
            // Due once: a scheduler whose cancellable does not stop the
            // repeating action runs it again, and Combine delivers (or
            // drops, without demand) the value only the first time.
            s.generation &+= 1
            // The value stays `currentValue` (Combine's mirror shows it)
            // until a newer one, the completion or cancel replaces it.
            guard let value = s.latest else { return .cancelOnly(action) }
            guard s.demand.rawValue > 0 else {
                return .cancelOnly(action) // no demand: dropped
            }
            if !s.demand.isUnlimited { s.demand -= 1 }
            return .deliver(value, cancel: action)
        }
        switch due {
        case .ignore:
            return
        case .cancelOnly(let action):
            action?.cancel()
        case .deliver(let value, let action):
            action?.cancel()
            let more = downstream.receive(value)
            if more.rawValue > 0 {
                state.withLock { s in
                    if s.status.isSubscribed { s.demand += more }
                }
            }
        }
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        let action = state.withLock { s -> (any Cancellable)?? in
            guard case .subscribed(let subscription) = s.status else { return nil }
            s.status = .pendingTerminal(subscription)
            s.latest = nil // a pending value is dropped, as in Combine
            s.generation &+= 1
            let action = s.pending
            s.pending = nil
            return action
        }
        guard let action else { return }
        action?.cancel()
        // Combine schedules the completion without the options.
        scheduler.schedule(options: nil) {
            self.state.withLock { $0.status = .terminal }
            self.downstream.receive(completion: completion)
        }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        // `.none` is accepted (it adds nothing), as in Combine.
        state.withLock { s in
            if s.status.isSubscribed { s.demand += demand }
        }
    }

    @inlinable
    func cancel() {
        let taken = state.withLock { s -> ((any Subscription)?, (any Cancellable)?) in
            // After the upstream completed, Combine ignores cancel: the
            // completion is still delivered.
            guard case .subscribed(let subscription) = s.status else { return (nil, nil) }
            s.status = .terminal
            s.latest = nil
            s.generation &+= 1
            let action = s.pending
            s.pending = nil
            return (subscription, action)
        }
        taken.1?.cancel()
        taken.0?.cancel()
    }

    @usableFromInline var description: String { "Debounce" }
    @usableFromInline var customMirror: Mirror {
        let s = state.withLock { ($0.demand, $0.latest) }
        return Mirror(self, children: ["downstream": downstream, "downstreamDemand": s.0,
                                       "currentValue": s.1 as Any])
    }
    @usableFromInline var playgroundDescription: Any { description }
}
