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
    /// As in Combine, each value and the completion costs one
    /// `schedule(options:_:)` call on the scheduler, and the pipeline stays
    /// alive until every scheduled action has run. A `cancel()` drops the
    /// values still on their way, unless the upstream has already
    /// completed: then the remaining values and the completion still
    /// arrive (Combine ignores that cancel).
    ///
    /// Cost: pending values wait in a ring buffer and every action is the
    /// same pre-formed closure, so the operator allocates nothing per value
    /// once warm; each value costs what one `schedule(options:_:)` of the
    /// scheduler costs (nothing for `ImmediateScheduler`, a warmed-up
    /// `TestScheduler` or a `UVLoop`; one work item for a `DispatchQueue`).
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

/// Schedules one action per value and per completion, as Combine does
/// (see ``ScheduledEvents``).
///
/// Combine's rules, kept here: `cancel()` stops the values still on their
/// way, but once the upstream has completed it is ignored, so the values
/// queued before the completion and the completion itself still arrive;
/// the inner object (and its subscriber) stays alive until every scheduled
/// action has run; `request` (`.none` included) goes straight upstream.
@usableFromInline
internal final class ReceiveOnInner<Downstream: Subscriber, Context: Scheduler>:
    Subscriber, Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
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
    @usableFromInline let scheduler: Context
    @usableFromInline let options: Context.SchedulerOptions?
    @usableFromInline let state = Locked(State())
    /// The action scheduled for every event, formed once in the
    /// initialiser (where it is specialised), so scheduling allocates no
    /// closure. It captures `self` weakly; ``ScheduledEvents`` holds `self`
    /// while actions are pending. Written only in `init`.
    @usableFromInline internal private(set) var deliverAction: () -> Void = {}

    @inlinable
    init(downstream: Downstream, scheduler: Context, options: Context.SchedulerOptions?) {
        self.downstream = downstream
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
        if schedule { scheduler.schedule(options: options, deliverAction) }
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
        if schedule { scheduler.schedule(options: options, deliverAction) }
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
                    // Values still pending when the subscriber cancelled
                    // are dropped; after the upstream completed they are not.
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

    @usableFromInline var description: String { "ReceiveOn" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}
