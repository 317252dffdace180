import Synchronization

extension Publisher {
    /// Specifies the scheduler on which to perform subscribe, cancel, and
    /// request operations.
    ///
    /// In contrast with ``Publisher/receive(on:options:)``, which affects
    /// downstream messages, `subscribe(on:)` changes the execution context of
    /// upstream messages: subscribing to the upstream, and every `request`
    /// and `cancel`, run as actions on `scheduler`. Values and the
    /// completion pass through on whatever thread the upstream sends them.
    /// Each request and cancel costs one scheduled closure (requests are not
    /// per element: the demand a subscriber returns from `receive(_:)`
    /// passes straight back).
    ///
    /// ```swift
    /// let c = expensiveToStartPublisher
    ///     .subscribe(on: DispatchQueue.global())   // start it off the caller's thread
    ///     .receive(on: loop)                        // deliver on the loop
    ///     .sink { print($0) }
    /// ```
    @inlinable
    public func subscribe<S: Scheduler>(on scheduler: S, options: S.SchedulerOptions? = nil)
        -> Publishers.SubscribeOn<Self, S>
    {
        Publishers.SubscribeOn(upstream: self, scheduler: scheduler, options: options)
    }
}

extension Publishers {
    /// A publisher that receives elements from an upstream publisher on a
    /// specific scheduler.
    ///
    /// ```swift
    /// let p = Publishers.SubscribeOn(upstream: Just(1), scheduler: DispatchQueue.global(), options: nil)
    /// ```
    public struct SubscribeOn<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The scheduler the publisher should use to receive elements.
        public let scheduler: Context
        /// Scheduler options that customize the delivery of elements.
        public let options: Context.SchedulerOptions?

        /// Creates a publisher that subscribes to `upstream` on `scheduler`.
        @inlinable
        public init(upstream: Upstream, scheduler: Context, options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.scheduler = scheduler
            self.options = options
        }

        /// Schedules the subscription to the upstream on the scheduler.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = SubscribeOnInner<S, Context>(downstream: subscriber, scheduler: scheduler, options: options)
            let upstream = self.upstream
            scheduler.schedule(options: options) { upstream.receive(subscriber: inner) }
        }
    }
}

/// Passes values through; moves request and cancel onto the scheduler.
@usableFromInline
internal final class SubscribeOnInner<Downstream: Subscriber, Context: Scheduler>:
    Subscriber, Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let downstream: Downstream
    @usableFromInline let scheduler: Context
    @usableFromInline let options: Context.SchedulerOptions?
    @usableFromInline let state = Locked(SubscriptionStatus.awaitingSubscription)

    @inlinable
    init(downstream: Downstream, scheduler: Context, options: Context.SchedulerOptions?) {
        self.downstream = downstream
        self.scheduler = scheduler
        self.options = options
    }

    @inlinable
    func receive(subscription: any Subscription) {
        let accepted = state.withLock { s -> Bool in
            guard case .awaitingSubscription = s else { return false }
            s = .subscribed(subscription)
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
        guard state.withLock({ $0.isSubscribed }) else { return .none }
        return downstream.receive(input)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        let active = state.withLock { s -> Bool in
            guard s.isSubscribed else { return false }
            s = .terminal
            return true
        }
        if active { downstream.receive(completion: completion) }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        // `.none` is forwarded too, as Combine does.
        guard let subscription = state.withLock({ $0.subscription }) else { return }
        scheduler.schedule(options: options) { subscription.request(demand) }
    }

    @inlinable
    func cancel() {
        let subscription = state.withLock { s -> (any Subscription)? in
            guard case .subscribed(let subscription) = s else { return nil }
            s = .terminal
            return subscription
        }
        guard let subscription else { return }
        scheduler.schedule(options: options) { subscription.cancel() }
    }

    @usableFromInline var description: String { "SubscribeOn" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}
