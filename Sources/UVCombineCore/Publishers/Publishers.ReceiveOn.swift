import Synchronization

extension Publisher {
    /// Specifies the scheduler on which to receive elements from the
    /// publisher.
    ///
    /// Values and the completion are delivered on `scheduler`, in the order
    /// the upstream sent them. The subscription itself reaches the
    /// subscriber synchronously, on the subscribing thread (Apple's
    /// documentation: `receive(on:options:)` "doesn't affect the scheduler
    /// used to call the subscriber's `receive(subscription:)` method"),
    /// and demand goes upstream on the thread that requests it. After
    /// `cancel()`, values already on their way to the scheduler are dropped.
    ///
    /// Cost: pending values wait in a ring buffer; the first value that
    /// finds no drain pending schedules one, and that drain delivers every
    /// value pending when it starts (a batch). Steady state allocates
    /// nothing per value; a batch costs what one `schedule(options:_:)` of
    /// the scheduler costs (nothing for `ImmediateScheduler` or a
    /// warmed-up `TestScheduler`; one work item for a `DispatchQueue`).
    ///
    /// ```swift
    /// let c = subject
    ///     .receive(on: DispatchQueue.main)
    ///     .sink { label.text = $0 }
    /// ```
    @inlinable
    public func receive<S: Scheduler>(on scheduler: S, options: S.SchedulerOptions? = nil)
        -> Publishers.ReceiveOn<Self, S>
    {
        Publishers.ReceiveOn(upstream: self, scheduler: scheduler, options: options)
    }
}

extension Publishers {
    /// A publisher that delivers elements to its downstream subscriber on a
    /// specific scheduler.
    ///
    /// ```swift
    /// let p = Publishers.ReceiveOn(upstream: Just(1), scheduler: ImmediateScheduler.shared, options: nil)
    /// ```
    public struct ReceiveOn<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The scheduler the publisher is to use for element delivery.
        public let scheduler: Context
        /// Scheduler options that customize the delivery of elements.
        public let options: Context.SchedulerOptions?

        /// Creates a publisher that delivers `upstream`'s elements on
        /// `scheduler`.
        @inlinable
        public init(upstream: Upstream, scheduler: Context, options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.scheduler = scheduler
            self.options = options
        }

        /// Subscribes an inner subscriber to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = ReceiveOnInner<S, Context>(
                downstream: subscriber, scheduler: scheduler, options: options)
            upstream.receive(subscriber: inner)
        }
    }
}

/// Queues values and the completion in a ``DeliveryQueue`` and drains it
/// on the scheduler.
@usableFromInline
internal final class ReceiveOnInner<Downstream: Subscriber, Context: Scheduler>:
    Subscriber, Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline
    internal struct State {
        @usableFromInline var status: SubscriptionStatus = .awaitingSubscription
        @usableFromInline var queue = DeliveryQueue<Input, Failure>()

        @inlinable
        init() {}
    }

    @usableFromInline let downstream: Downstream
    @usableFromInline let scheduler: Context
    @usableFromInline let options: Context.SchedulerOptions?
    @usableFromInline let state = Mutex(UncheckedSendable(State()))
    /// The drain, formed once in the initialiser (where it is
    /// specialised) and handed to the scheduler for every batch, so a
    /// batch allocates no closure. It captures `self` weakly; the
    /// queue's `keepAlive` holds `self` while a drain is pending.
    /// Written only in `init`.
    @usableFromInline internal private(set) var drainAction: () -> Void = {}

    @inlinable
    init(downstream: Downstream, scheduler: Context, options: Context.SchedulerOptions?) {
        self.downstream = downstream
        self.scheduler = scheduler
        self.options = options
        drainAction = { [weak self] in self?.drain() }
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
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        let schedule = state.withLock { s -> Bool in
            guard s.value.status.isSubscribed else { return false }
            return s.value.queue.enqueue(input, owner: self)
        }
        if schedule { scheduler.schedule(options: options, drainAction) }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        let schedule = state.withLock { s -> Bool in
            guard case .subscribed(let subscription) = s.value.status else { return false }
            s.value.status = .pendingTerminal(subscription)
            return s.value.queue.enqueue(completion: completion, owner: self)
        }
        if schedule { scheduler.schedule(options: options, drainAction) }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let subscription = state.withLock { s -> (any Subscription)? in
            guard case .subscribed(let subscription) = s.value.status else { return nil }
            return subscription
        }
        subscription?.request(demand)
    }

    @inlinable
    func cancel() {
        let taken = state.withLock { s -> UncheckedSendable<((any Subscription)?, AnyObject?)> in
            let upstream: (any Subscription)?
            switch s.value.status {
            case .subscribed(let subscription): upstream = subscription
            case .pendingTerminal: upstream = nil // upstream already finished
            case .awaitingSubscription, .terminal: return UncheckedSendable((nil, nil))
            }
            s.value.status = .terminal
            return UncheckedSendable((upstream, s.value.queue.close()))
        }
        taken.value.0?.cancel()
        // taken.value.1 (this object, kept alive for a pending drain) is
        // released here, outside the lock.
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
                if more.rawValue > 0 { requestMore(more) }
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
    func requestMore(_ demand: Subscribers.Demand) {
        let subscription = state.withLock { s -> (any Subscription)? in
            guard case .subscribed(let subscription) = s.value.status else { return nil }
            return subscription
        }
        subscription?.request(demand)
    }

    @usableFromInline var description: String { "ReceiveOn" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}
