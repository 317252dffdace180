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
    /// Cost: while values keep arriving the operator only moves its
    /// deadline; one cancellable scheduled action is pending at a time and
    /// re-arms itself when it fires before the current deadline.
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

/// Holds the latest value and its deadline; an ``Alarm`` delivers it.
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
        @usableFromInline var deadline: Time?
        @usableFromInline var alarm = Alarm()

        @inlinable
        init() {}
    }

    @usableFromInline
    internal enum Fired {
        case ignore
        case deliver(Input, cancel: (any Cancellable)?)
        case rearm(Time, epoch: UInt64, cancel: (any Cancellable)?)
        case cancelOnly((any Cancellable)?)
    }

    @usableFromInline let downstream: Downstream
    @usableFromInline let dueTime: Context.SchedulerTimeType.Stride
    @usableFromInline let scheduler: Context
    @usableFromInline let options: Context.SchedulerOptions?
    @usableFromInline let state = Mutex(UncheckedSendable(State()))
    /// Formed once in `init`; captures `self` weakly (the alarm is
    /// cancelled on completion, cancel and deinit). Written only there.
    @usableFromInline internal private(set) var fireAction: () -> Void = {}

    @inlinable
    init(downstream: Downstream, dueTime: Context.SchedulerTimeType.Stride, scheduler: Context,
         options: Context.SchedulerOptions?) {
        self.downstream = downstream
        self.dueTime = dueTime
        self.scheduler = scheduler
        self.options = options
        fireAction = { [weak self] in self?.fire() }
    }

    deinit {
        state.withLock { UncheckedSendable($0.value.alarm.disarm()) }.value?.cancel()
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
        downstream.receive(subscription: self)
        subscription.request(.unlimited)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        let deadline = scheduler.now.advanced(by: dueTime)
        let epoch = state.withLock { s -> UInt64? in
            guard s.value.status.isSubscribed else { return nil }
            s.value.latest = input
            s.value.deadline = deadline
            return s.value.alarm.beginArming()
        }
        if let epoch { arm(at: deadline, epoch: epoch) }
        return .none
    }

    @inlinable
    func arm(at deadline: Time, epoch: UInt64) {
        let token = scheduler.scheduleAlarm(at: deadline, interval: dueTime, options: options, fireAction)
        state.withLock { UncheckedSendable($0.value.alarm.armed(token, epoch: epoch)) }.value?.cancel()
    }

    @inlinable
    func fire() {
        let now = scheduler.now
        let fired = state.withLock { s -> UncheckedSendable<Fired> in
            guard s.value.status.isSubscribed, s.value.alarm.isActive else { return UncheckedSendable(.ignore) }
            guard let deadline = s.value.deadline else {
                return UncheckedSendable(.cancelOnly(s.value.alarm.disarm()))
            }
            let token = s.value.alarm.disarm()
            guard deadline <= now else {
                // A newer value moved the deadline: wait for it.
                let epoch = s.value.alarm.beginArming() ?? 0
                return UncheckedSendable(.rearm(deadline, epoch: epoch, cancel: token))
            }
            s.value.deadline = nil
            guard let value = s.value.latest else { return UncheckedSendable(.cancelOnly(token)) }
            s.value.latest = nil
            guard s.value.demand.rawValue > 0 else {
                return UncheckedSendable(.cancelOnly(token)) // no demand: dropped
            }
            if !s.value.demand.isUnlimited { s.value.demand -= 1 }
            return UncheckedSendable(.deliver(value, cancel: token))
        }
        switch fired.value {
        case .ignore:
            return
        case .cancelOnly(let token):
            token?.cancel()
        case .rearm(let deadline, let epoch, let token):
            token?.cancel()
            arm(at: deadline, epoch: epoch)
        case .deliver(let value, let token):
            token?.cancel()
            let more = downstream.receive(value)
            if more.rawValue > 0 {
                state.withLock { s in
                    if s.value.status.isSubscribed { s.value.demand += more }
                }
            }
        }
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        let token = state.withLock { s -> UncheckedSendable<(any Cancellable)?>? in
            guard case .subscribed(let subscription) = s.value.status else { return nil }
            s.value.status = .pendingTerminal(subscription)
            s.value.latest = nil // a pending value is dropped, as in Combine
            s.value.deadline = nil
            return UncheckedSendable(s.value.alarm.disarm())
        }
        guard let token else { return }
        token.value?.cancel()
        scheduler.schedule(options: options) {
            let deliver = self.state.withLock { s -> Bool in
                guard case .pendingTerminal = s.value.status else { return false }
                s.value.status = .terminal
                return true
            }
            if deliver { self.downstream.receive(completion: completion) }
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
        let taken = state.withLock { s -> UncheckedSendable<((any Subscription)?, (any Cancellable)?)> in
            let upstream: (any Subscription)?
            switch s.value.status {
            case .subscribed(let subscription): upstream = subscription
            case .pendingTerminal: upstream = nil
            case .awaitingSubscription, .terminal: return UncheckedSendable((nil, nil))
            }
            s.value.status = .terminal
            s.value.latest = nil
            s.value.deadline = nil
            return UncheckedSendable((upstream, s.value.alarm.disarm()))
        }
        taken.value.1?.cancel()
        taken.value.0?.cancel()
    }

    @usableFromInline var description: String { "Debounce" }
    @usableFromInline var customMirror: Mirror {
        let s = state.withLock { UncheckedSendable(($0.value.demand, $0.value.latest)) }.value
        return Mirror(self, children: ["downstream": downstream, "downstreamDemand": s.0,
                                       "currentValue": s.1 as Any])
    }
    @usableFromInline var playgroundDescription: Any { description }
}
