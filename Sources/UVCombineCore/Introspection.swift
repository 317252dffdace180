import Synchronization

/// Combine's debugging hooks: an object that is told about every
/// subscription made through ``Publisher/subscribe(_:)-4o153`` and
/// `sink(…)`, and about every event and request that then passes between
/// that subscriber and its subscription.
///
/// Every hook has a no-op default; implement the ones you need and call
/// `enable()`. Several introspections may be enabled at once. While none is
/// enabled, the cost is one relaxed atomic load per `subscribe` and no
/// wrapping at all; while one is, each subscriber made through `subscribe`
/// is wrapped so its events reach the hooks (the operators' internal links,
/// which subscribe with `receive(subscriber:)`, are not reported).
///
/// Threading: hooks run on the thread of the event they report; `enable()`
/// and `disable()` may be called from any thread.
///
/// ```swift
/// final class Logger: _Introspection {
///     func willReceive<S: Subscriber>(subscriber: S, input: S.Input) { print("value \(input)") }
/// }
/// let logger = Logger()
/// logger.enable()
/// _ = Just(1).sink { _ in } // Prints: "value 1"
/// logger.disable()
/// ```
public protocol _Introspection: AnyObject {
    /// A publisher is about to receive a subscriber.
    func willReceive<P: Publisher, S: Subscriber>(publisher: P, subscriber: S)
        where P.Failure == S.Failure, P.Output == S.Input
    /// A publisher has received a subscriber.
    func didReceive<P: Publisher, S: Subscriber>(publisher: P, subscriber: S)
        where P.Failure == S.Failure, P.Output == S.Input
    /// A subscriber is about to receive its subscription.
    func willReceive<S: Subscriber>(subscriber: S, subscription: any Subscription)
    /// A subscriber has received its subscription.
    func didReceive<S: Subscriber>(subscriber: S, subscription: any Subscription)
    /// A subscriber is about to receive a value.
    func willReceive<S: Subscriber>(subscriber: S, input: S.Input)
    /// A subscriber has received a value and returned `resultingDemand`.
    func didReceive<S: Subscriber>(subscriber: S, input: S.Input, resultingDemand: Subscribers.Demand)
    /// A subscriber is about to receive its completion.
    func willReceive<S: Subscriber>(subscriber: S, completion: Subscribers.Completion<S.Failure>)
    /// A subscriber has received its completion.
    func didReceive<S: Subscriber>(subscriber: S, completion: Subscribers.Completion<S.Failure>)
    /// A subscription is about to be asked for `demand`.
    func willRequest(subscription: any Subscription, _ demand: Subscribers.Demand)
    /// A subscription has been asked for `demand`.
    func didRequest(subscription: any Subscription, _ demand: Subscribers.Demand)
    /// A subscription is about to be cancelled.
    func willCancel(subscription: any Subscription)
    /// A subscription has been cancelled.
    func didCancel(subscription: any Subscription)
}

extension _Introspection {
    /// Called before `publisher` receives `subscriber`; does nothing by default. Runs on the thread of the event it reports.
    ///
    /// ```swift
    /// func willReceive<P: Publisher, S: Subscriber>(publisher: P, subscriber: S) { print("subscribing", subscriber) }
    /// ```
    public func willReceive<P: Publisher, S: Subscriber>(publisher: P, subscriber: S)
        where P.Failure == S.Failure, P.Output == S.Input {}
    /// Called after `publisher` received `subscriber`; does nothing by default. Runs on the thread of the event it reports.
    ///
    /// ```swift
    /// func didReceive<P: Publisher, S: Subscriber>(publisher: P, subscriber: S) { print("subscribed", subscriber) }
    /// ```
    public func didReceive<P: Publisher, S: Subscriber>(publisher: P, subscriber: S)
        where P.Failure == S.Failure, P.Output == S.Input {}
    /// Called before `subscriber` receives its subscription; does nothing by default. Runs on the thread of the event it reports.
    ///
    /// ```swift
    /// func willReceive<S: Subscriber>(subscriber: S, subscription: any Subscription) { print(subscription) }
    /// ```
    public func willReceive<S: Subscriber>(subscriber: S, subscription: any Subscription) {}
    /// Called after `subscriber` received its subscription; does nothing by default. Runs on the thread of the event it reports.
    ///
    /// ```swift
    /// func didReceive<S: Subscriber>(subscriber: S, subscription: any Subscription) { print(subscription) }
    /// ```
    public func didReceive<S: Subscriber>(subscriber: S, subscription: any Subscription) {}
    /// Called before `subscriber` receives a value; does nothing by default. Runs on the thread of the event it reports.
    ///
    /// ```swift
    /// func willReceive<S: Subscriber>(subscriber: S, input: S.Input) { print("value", input) }
    /// ```
    public func willReceive<S: Subscriber>(subscriber: S, input: S.Input) {}
    /// Called after `subscriber` received a value, with the demand it returned; does nothing by default. Runs on the thread of the event it reports.
    ///
    /// ```swift
    /// func didReceive<S: Subscriber>(subscriber: S, input: S.Input, resultingDemand: Subscribers.Demand) { print(resultingDemand) }
    /// ```
    public func didReceive<S: Subscriber>(subscriber: S, input: S.Input, resultingDemand: Subscribers.Demand) {}
    /// Called before `subscriber` receives its completion; does nothing by default. Runs on the thread of the event it reports.
    ///
    /// ```swift
    /// func willReceive<S: Subscriber>(subscriber: S, completion: Subscribers.Completion<S.Failure>) { print(completion) }
    /// ```
    public func willReceive<S: Subscriber>(subscriber: S, completion: Subscribers.Completion<S.Failure>) {}
    /// Called after `subscriber` received its completion; does nothing by default. Runs on the thread of the event it reports.
    ///
    /// ```swift
    /// func didReceive<S: Subscriber>(subscriber: S, completion: Subscribers.Completion<S.Failure>) { print(completion) }
    /// ```
    public func didReceive<S: Subscriber>(subscriber: S, completion: Subscribers.Completion<S.Failure>) {}
    /// Called before a subscriber requests `demand` from `subscription`; does nothing by default. Runs on the thread of the event it reports.
    ///
    /// ```swift
    /// func willRequest(subscription: any Subscription, _ demand: Subscribers.Demand) { print("request", demand) }
    /// ```
    public func willRequest(subscription: any Subscription, _ demand: Subscribers.Demand) {}
    /// Called after a subscriber requested `demand` from `subscription`; does nothing by default. Runs on the thread of the event it reports.
    ///
    /// ```swift
    /// func didRequest(subscription: any Subscription, _ demand: Subscribers.Demand) { print("requested", demand) }
    /// ```
    public func didRequest(subscription: any Subscription, _ demand: Subscribers.Demand) {}
    /// Called before `subscription` is cancelled; does nothing by default. Runs on the thread of the event it reports.
    ///
    /// ```swift
    /// func willCancel(subscription: any Subscription) { print("cancel", subscription) }
    /// ```
    public func willCancel(subscription: any Subscription) {}
    /// Called after `subscription` was cancelled; does nothing by default. Runs on the thread of the event it reports.
    ///
    /// ```swift
    /// func didCancel(subscription: any Subscription) { print("cancelled", subscription) }
    /// ```
    public func didCancel(subscription: any Subscription) {}

    /// Starts reporting to this introspection (idempotent).
    ///
    /// ```swift
    /// logger.enable()
    /// ```
    public func enable() {
        IntrospectionRegistry.enable(self)
    }

    /// Stops reporting to this introspection (idempotent).
    ///
    /// ```swift
    /// logger.disable()
    /// ```
    public func disable() {
        IntrospectionRegistry.disable(self)
    }

    /// Whether this introspection is enabled.
    public var isEnabled: Bool {
        IntrospectionRegistry.isEnabled(self)
    }
}

/// The enabled introspections. `active` is read on every `subscribe`
/// (relaxed: a subscription racing with `enable()` may or may not be
/// reported, which is all a debugging hook can promise).
@usableFromInline
internal enum IntrospectionRegistry {
    private static let handlers = Locked<[ObjectIdentifier: any _Introspection]>([:])
    private static let activeFlag = Atomic<Bool>(false)

    /// Whether any introspection is enabled.
    @usableFromInline
    internal static var isActive: Bool { activeFlag.load(ordering: .relaxed) }

    internal static func enable(_ handler: any _Introspection) {
        handlers.withLock {
            $0[ObjectIdentifier(handler)] = handler
            activeFlag.store(true, ordering: .relaxed)
        }
    }

    internal static func disable(_ handler: any _Introspection) {
        handlers.withLock {
            $0[ObjectIdentifier(handler)] = nil
            activeFlag.store(!$0.isEmpty, ordering: .relaxed)
        }
    }

    internal static func isEnabled(_ handler: any _Introspection) -> Bool {
        handlers.withLock { $0[ObjectIdentifier(handler)] != nil }
    }

    /// The enabled introspections now (called outside the lock).
    @usableFromInline
    internal static var current: [any _Introspection] {
        guard isActive else { return [] }
        return handlers.withLock { Array($0.values) }
    }

    /// Subscribes `subscriber` to `publisher` wrapped in a tap that reports
    /// to the enabled introspections (what `subscribe` does while one is).
    @usableFromInline
    internal static func subscribe<P: Publisher, S: Subscriber>(_ publisher: P, _ subscriber: S)
        where P.Output == S.Input, P.Failure == S.Failure
    {
        let hooks = current
        for hook in hooks { hook.willReceive(publisher: publisher, subscriber: subscriber) }
        // Already tapped, also behind an `AnySubscriber` (what an
        // `AnyPublisher` hands on): a publisher that forwards its subscriber
        // with `subscribe` must not tap it twice, or every hook fires twice.
        if subscriber is any IntrospectionTapMarker
            || (subscriber as? any IntrospectionTapCarrier)?.carriesIntrospectionTap == true {
            publisher.receive(subscriber: subscriber)
        } else {
            publisher.receive(subscriber: SubscriberTap(subscriber: subscriber))
        }
        for hook in hooks { hook.didReceive(publisher: publisher, subscriber: subscriber) }
    }
}

/// Marks a subscriber that already reports to the introspections.
internal protocol IntrospectionTapMarker {}

/// A subscriber that may wrap one that reports to the introspections
/// (`AnySubscriber`).
internal protocol IntrospectionTapCarrier {
    /// Whether the wrapped subscriber already reports to the introspections.
    var carriesIntrospectionTap: Bool { get }
}

extension AnySubscriber: IntrospectionTapCarrier {
    internal var carriesIntrospectionTap: Bool { box.wrapsIntrospectionTap }
}

/// Wraps a subscriber while introspection is enabled; describes itself and
/// identifies itself as the subscriber it wraps.
@usableFromInline
internal struct SubscriberTap<Wrapped: Subscriber>: Subscriber, CustomStringConvertible, IntrospectionTapMarker {
    @usableFromInline typealias Input = Wrapped.Input
    @usableFromInline typealias Failure = Wrapped.Failure

    @usableFromInline let subscriber: Wrapped

    @usableFromInline
    init(subscriber: Wrapped) {
        self.subscriber = subscriber
    }

    @usableFromInline var combineIdentifier: CombineIdentifier { subscriber.combineIdentifier }

    @usableFromInline
    func receive(subscription: any Subscription) {
        let hooks = IntrospectionRegistry.current
        let inner = (subscription as? SubscriptionTap)?.subscription ?? subscription
        for hook in hooks { hook.willReceive(subscriber: subscriber, subscription: inner) }
        subscriber.receive(subscription: subscription is SubscriptionTap ? subscription : SubscriptionTap(subscription: subscription))
        for hook in hooks { hook.didReceive(subscriber: subscriber, subscription: inner) }
    }

    @usableFromInline
    func receive(_ input: Wrapped.Input) -> Subscribers.Demand {
        let hooks = IntrospectionRegistry.current
        for hook in hooks { hook.willReceive(subscriber: subscriber, input: input) }
        let demand = subscriber.receive(input)
        for hook in hooks { hook.didReceive(subscriber: subscriber, input: input, resultingDemand: demand) }
        return demand
    }

    @usableFromInline
    func receive(completion: Subscribers.Completion<Wrapped.Failure>) {
        let hooks = IntrospectionRegistry.current
        for hook in hooks { hook.willReceive(subscriber: subscriber, completion: completion) }
        subscriber.receive(completion: completion)
        for hook in hooks { hook.didReceive(subscriber: subscriber, completion: completion) }
    }

    @usableFromInline var description: String { String(describing: subscriber) }
}

/// Wraps a subscription while introspection is enabled; describes itself
/// and identifies itself as the subscription it wraps.
@usableFromInline
internal final class SubscriptionTap: Subscription, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible
{
    @usableFromInline let subscription: any Subscription

    @usableFromInline
    init(subscription: any Subscription) {
        self.subscription = subscription
    }

    @usableFromInline var combineIdentifier: CombineIdentifier { subscription.combineIdentifier }

    @usableFromInline
    func request(_ demand: Subscribers.Demand) {
        let hooks = IntrospectionRegistry.current
        for hook in hooks { hook.willRequest(subscription: subscription, demand) }
        subscription.request(demand)
        for hook in hooks { hook.didRequest(subscription: subscription, demand) }
    }

    @usableFromInline
    func cancel() {
        let hooks = IntrospectionRegistry.current
        for hook in hooks { hook.willCancel(subscription: subscription) }
        subscription.cancel()
        for hook in hooks { hook.didCancel(subscription: subscription) }
    }

    @usableFromInline var description: String { String(describing: subscription) }
    @usableFromInline var customMirror: Mirror { Mirror(reflecting: subscription) }
    @usableFromInline var playgroundDescription: Any {
        (subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription ?? description
    }
}
