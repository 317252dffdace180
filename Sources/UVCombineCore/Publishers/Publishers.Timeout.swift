import Synchronization

extension Publisher {
    /// Terminates publishing if the upstream publisher exceeds the specified
    /// time interval without producing an element.
    ///
    /// The clock starts at subscription and restarts at the first request
    /// and at every value. When `interval` passes without a value, the
    /// upstream is cancelled and the subscriber receives `.finished`, or
    /// `.failure(customError())` when `customError` is given. The timeout
    /// fires exactly at the deadline, never before; a value arriving at
    /// the deadline instant itself (ahead of the timer in the scheduler's
    /// order) restarts the clock.
    ///
    /// As in Combine, values and the completion are delivered on
    /// `scheduler`, in order; the timeout's completion follows any value
    /// already received. Delivery uses the same ring buffer and batched
    /// drain as ``Publisher/receive(on:options:)``, and the clock is one
    /// cancellable scheduled action whose deadline moves with each value,
    /// so steady traffic schedules nothing per value beyond the drain.
    ///
    /// ```swift
    /// let c = session.dataTaskPublisher(for: url)
    ///     .timeout(.seconds(5), scheduler: loop, customError: { URLError(.timedOut) })
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0.response.status) })
    /// ```
    @inlinable
    public func timeout<S: Scheduler>(_ interval: S.SchedulerTimeType.Stride,
                                      scheduler: S,
                                      options: S.SchedulerOptions? = nil,
                                      customError: (() -> Failure)? = nil) -> Publishers.Timeout<Self, S> {
        Publishers.Timeout(upstream: self, interval: interval, scheduler: scheduler, options: options,
                           customError: customError)
    }
}

extension Publishers {
    /// A publisher that terminates publishing if the upstream exceeds a
    /// time interval without producing an element.
    ///
    /// ```swift
    /// let p = Publishers.Timeout(upstream: subject, interval: .seconds(5), scheduler: DispatchQueue.main,
    ///                            options: nil, customError: nil)
    /// ```
    public struct Timeout<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The maximum time interval the publisher can go without emitting an
        /// element, expressed in the time system of the scheduler.
        public let interval: Context.SchedulerTimeType.Stride
        /// The scheduler on which to deliver events.
        public let scheduler: Context
        /// Scheduler options that customize the delivery of elements.
        public let options: Context.SchedulerOptions?
        /// A closure that executes if the publisher times out. The publisher
        /// sends the failure returned by this closure to the subscriber as
        /// the reason for termination.
        public let customError: (() -> Upstream.Failure)?

        /// Creates a timeout publisher.
        @inlinable
        public init(upstream: Upstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context,
                    options: Context.SchedulerOptions?, customError: (() -> Upstream.Failure)?) {
            self.upstream = upstream
            self.interval = interval
            self.scheduler = scheduler
            self.options = options
            self.customError = customError
        }

        /// Subscribes an inner subscriber to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = TimeoutInner<S, Context>(
                downstream: subscriber, interval: interval, scheduler: scheduler, options: options,
                customError: customError)
            upstream.receive(subscriber: inner)
        }
    }
}

/// A ``DeliveryQueue`` for values and completion, and an ``Alarm`` for
/// the deadline.
@usableFromInline
internal final class TimeoutInner<Downstream: Subscriber, Context: Scheduler>:
    Subscriber, Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure
    @usableFromInline typealias Time = Context.SchedulerTimeType

    @usableFromInline
    internal struct State {
        @usableFromInline var status: SubscriptionStatus = .awaitingSubscription
        @usableFromInline var queue = DeliveryQueue<Input, Failure>()
        @usableFromInline var deadline: Time?
        @usableFromInline var alarm = Alarm()
        @usableFromInline var requestedOnce = false

        @inlinable
        init() {}
    }

    @usableFromInline
    internal enum Fired {
        case ignore
        case rearm(Time, epoch: UInt64, cancel: (any Cancellable)?)
        case timedOut(upstream: (any Subscription)?, cancel: (any Cancellable)?, scheduleDrain: Bool)
    }

    @usableFromInline let downstream: Downstream
    @usableFromInline let interval: Context.SchedulerTimeType.Stride
    @usableFromInline let scheduler: Context
    @usableFromInline let options: Context.SchedulerOptions?
    @usableFromInline let customError: (() -> Failure)?
    @usableFromInline let state = Mutex(UncheckedSendable(State()))
    /// Both formed once in `init`, capturing `self` weakly; written only there.
    @usableFromInline internal private(set) var drainAction: () -> Void = {}
    @usableFromInline internal private(set) var fireAction: () -> Void = {}

    @inlinable
    init(downstream: Downstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context,
         options: Context.SchedulerOptions?, customError: (() -> Failure)?) {
        self.downstream = downstream
        self.interval = interval
        self.scheduler = scheduler
        self.options = options
        self.customError = customError
        drainAction = { [weak self] in self?.drain() }
        fireAction = { [weak self] in self?.fire() }
    }

    deinit {
        state.withLock { UncheckedSendable($0.value.alarm.disarm()) }.value?.cancel()
    }

    @inlinable
    func receive(subscription: any Subscription) {
        let deadline = scheduler.now.advanced(by: interval)
        let accepted = state.withLock { s -> Bool in
            guard case .awaitingSubscription = s.value.status else { return false }
            s.value.status = .subscribed(subscription)
            s.value.deadline = deadline
            return true
        }
        guard accepted else {
            subscription.cancel()
            return
        }
        // The subscriber gets its subscription before the clock can fire
        // (an immediate scheduler would fire it at once).
        downstream.receive(subscription: self)
        let armAt = state.withLock { s -> UncheckedSendable<(Time, UInt64)?> in
            guard s.value.status.isSubscribed, let deadline = s.value.deadline,
                  let epoch = s.value.alarm.beginArming() else { return UncheckedSendable(nil) }
            return UncheckedSendable((deadline, epoch))
        }
        if let (deadline, epoch) = armAt.value { arm(at: deadline, epoch: epoch) }
    }

    @inlinable
    func arm(at deadline: Time, epoch: UInt64) {
        let token = scheduler.scheduleAlarm(at: deadline, interval: interval, options: options, fireAction)
        state.withLock { UncheckedSendable($0.value.alarm.armed(token, epoch: epoch)) }.value?.cancel()
    }

    /// Moves the deadline to `interval` from now; arms the alarm if idle.
    @inlinable
    func restartClock(_ update: (inout State) -> Bool) {
        let deadline = scheduler.now.advanced(by: interval)
        let epoch = state.withLock { s -> UInt64? in
            guard s.value.status.isSubscribed, update(&s.value) else { return nil }
            s.value.deadline = deadline
            return s.value.alarm.beginArming()
        }
        if let epoch { arm(at: deadline, epoch: epoch) }
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        let deadline = scheduler.now.advanced(by: interval)
        let (epoch, drain) = state.withLock { s -> (UInt64?, Bool) in
            guard s.value.status.isSubscribed else { return (nil, false) }
            s.value.deadline = deadline
            let drain = s.value.queue.enqueue(input, owner: self)
            return (s.value.alarm.beginArming(), drain)
        }
        if let epoch { arm(at: deadline, epoch: epoch) }
        if drain { scheduler.schedule(options: options, drainAction) }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        let taken = state.withLock { s -> UncheckedSendable<((any Cancellable)?, Bool)>? in
            guard case .subscribed(let subscription) = s.value.status else { return nil }
            s.value.status = .pendingTerminal(subscription)
            s.value.deadline = nil
            let drain = s.value.queue.enqueue(completion: completion, owner: self)
            return UncheckedSendable((s.value.alarm.disarm(), drain))
        }
        guard let taken else { return }
        taken.value.0?.cancel()
        if taken.value.1 { scheduler.schedule(options: options, drainAction) }
    }

    @inlinable
    func fire() {
        let now = scheduler.now
        let fired = state.withLock { s -> UncheckedSendable<Fired> in
            guard case .subscribed(let subscription) = s.value.status, s.value.alarm.isActive,
                  let deadline = s.value.deadline
            else { return UncheckedSendable(.ignore) }
            let token = s.value.alarm.disarm()
            guard deadline <= now else {
                let epoch = s.value.alarm.beginArming() ?? 0
                return UncheckedSendable(.rearm(deadline, epoch: epoch, cancel: token))
            }
            s.value.status = .pendingTerminal(subscription)
            s.value.deadline = nil
            let completion: Subscribers.Completion<Failure> = customError.map { .failure($0()) } ?? .finished
            let drain = s.value.queue.enqueue(completion: completion, owner: self)
            return UncheckedSendable(.timedOut(upstream: subscription, cancel: token, scheduleDrain: drain))
        }
        switch fired.value {
        case .ignore:
            return
        case .rearm(let deadline, let epoch, let token):
            token?.cancel()
            arm(at: deadline, epoch: epoch)
        case .timedOut(let upstream, let token, let scheduleDrain):
            token?.cancel()
            upstream?.cancel()
            if scheduleDrain { scheduler.schedule(options: options, drainAction) }
        }
    }

    /// Delivers batches until the queue is idle; see ``DeliveryQueue``.
    @inlinable
    func drain() {
        guard var budget = state.withLock({ $0.value.queue.beginDrain() }) else { return }
        while true {
            let step = state.withLock { s in UncheckedSendable(s.value.queue.next(budget: &budget)) }
            switch step.value {
            case .value(let value):
                let more = downstream.receive(value)
                if more.rawValue > 0 { requestUpstream(more) }
            case .completion(let completion, _):
                state.withLock { $0.value.status = .terminal }
                downstream.receive(completion: completion)
                return
            case .yield:
                scheduler.schedule(options: options, drainAction)
                let next = state.withLock { s in UncheckedSendable(s.value.queue.afterYield()) }
                guard case .resume(let newBudget) = next.value else { return }
                budget = newBudget
            case .idle:
                return
            }
        }
    }

    @inlinable
    func requestUpstream(_ demand: Subscribers.Demand) {
        let subscription = state.withLock { s -> (any Subscription)? in
            guard case .subscribed(let subscription) = s.value.status else { return nil }
            return subscription
        }
        subscription?.request(demand)
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        // Combine restarts the clock at the first request.
        restartClock { state in
            if state.requestedOnce { return false }
            state.requestedOnce = true
            return true
        }
        requestUpstream(demand)
    }

    @inlinable
    func cancel() {
        let taken = state.withLock {
            s -> UncheckedSendable<((any Subscription)?, (any Cancellable)?, AnyObject?)> in
            let upstream: (any Subscription)?
            switch s.value.status {
            case .subscribed(let subscription): upstream = subscription
            case .pendingTerminal: upstream = nil
            case .awaitingSubscription, .terminal: return UncheckedSendable((nil, nil, nil))
            }
            s.value.status = .terminal
            s.value.deadline = nil
            return UncheckedSendable((upstream, s.value.alarm.disarm(), s.value.queue.close()))
        }
        taken.value.1?.cancel()
        taken.value.0?.cancel()
    }

    @usableFromInline var description: String { "Timeout" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}
