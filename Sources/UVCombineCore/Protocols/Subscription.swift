/// A protocol representing the connection of a subscriber to a publisher.
///
/// Subscriptions are class instances with identity. Cancelling one frees the
/// resources the publisher attached to it. `request(_:)` and `cancel()` may be
/// called from any thread, also from inside the subscriber's own callbacks.
///
/// ```swift
/// final class OneAtATime: Subscriber {
///     func receive(subscription: any Subscription) { subscription.request(.max(1)) }
///     func receive(_ input: Int) -> Subscribers.Demand { .max(1) }
///     func receive(completion: Subscribers.Completion<Never>) {}
/// }
/// ```
public protocol Subscription: Cancellable, CustomCombineIdentifierConvertible {
    /// Tells a publisher that it may send more values to the subscriber.
    ///
    /// Requesting `.none` is a contract violation and traps, as in Combine.
    func request(_ demand: Subscribers.Demand)
}

/// A namespace for symbols related to subscriptions.
///
/// ```swift
/// let subscription = Subscriptions.empty
/// subscription.request(.max(1)) // does nothing
/// ```
public enum Subscriptions {}

extension Subscriptions {
    /// Returns the "empty" subscription: requests and cancellation do nothing.
    ///
    /// Use it for publishers that complete at once, such as ``Empty``, and to
    /// fulfil the obligation to send a subscription before a completion.
    ///
    /// ```swift
    /// subscriber.receive(subscription: Subscriptions.empty)
    /// subscriber.receive(completion: .finished)
    /// ```
    public static var empty: any Subscription { EmptySubscription.singleton }
}

/// The subscription behind ``Subscriptions/empty``. Stateless and shared.
/// As Combine's: every request (`.none` too) and cancel does nothing; it
/// describes itself as "Empty", with no mirror children.
@usableFromInline
internal final class EmptySubscription: Subscription, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible, Sendable
{
    @usableFromInline static let singleton = EmptySubscription()
    private init() {}
    @usableFromInline func request(_ demand: Subscribers.Demand) {}
    @usableFromInline func cancel() {}
    @usableFromInline var description: String { "Empty" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}
