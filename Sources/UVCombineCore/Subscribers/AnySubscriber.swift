/// A type-erasing subscriber.
///
/// Wraps any subscriber, a subject, or three closures, so that the concrete
/// type does not appear in an API. Wrapping an `AnySubscriber` again reuses
/// its box. Threading: as the wrapped subscriber.
///
/// ```swift
/// let any = AnySubscriber<Int, Never>(
///     receiveSubscription: { $0.request(.unlimited) },
///     receiveValue: { print($0); return .none },
///     receiveCompletion: { _ in })
/// [1].publisher.subscribe(any) // Prints: "1"
/// ```
@frozen
public struct AnySubscriber<Input, Failure: Error>: Subscriber, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible
{
    @usableFromInline internal let box: AnySubscriberBox<Input, Failure>

    /// The wrapped subscriber's identifier.
    public let combineIdentifier: CombineIdentifier

    /// Wraps `subscriber`.
    ///
    /// ```swift
    /// let erased = AnySubscriber(Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in }))
    /// ```
    @inlinable
    public init<S: Subscriber>(_ subscriber: S) where S.Input == Input, S.Failure == Failure {
        if let already = subscriber as? AnySubscriber<Input, Failure> {
            self = already
            return
        }
        box = SubscriberBox<Input, Failure, S>.make(subscriber)
        combineIdentifier = subscriber.combineIdentifier
    }

    /// Wraps a subject: values and completion are sent to it, and the
    /// subscription is handed to it with `send(subscription:)`.
    ///
    /// ```swift
    /// let erased = AnySubscriber(PassthroughSubject<Int, Never>())
    /// ```
    public init<S: Subject>(_ subject: S) where S.Output == Input, S.Failure == Failure {
        self.init(SubjectSubscriber(subject))
    }

    /// Creates a subscriber from closures; a missing closure does nothing
    /// (a missing `receiveValue` returns `.none`).
    ///
    /// ```swift
    /// let erased = AnySubscriber<Int, Never>(receiveValue: { print($0); return .none })
    /// ```
    public init(receiveSubscription: ((any Subscription) -> Void)? = nil,
                receiveValue: ((Input) -> Subscribers.Demand)? = nil,
                receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil) {
        box = ClosureSubscriberBox(receiveSubscription: receiveSubscription ?? { _ in },
                                   receiveValue: receiveValue ?? { _ in .none },
                                   receiveCompletion: receiveCompletion ?? { _ in })
        combineIdentifier = CombineIdentifier()
    }

    /// Forwards to the wrapped subscriber.
    @inlinable
    public func receive(subscription: any Subscription) {
        box.receiveSubscription(box, subscription)
    }

    /// Forwards to the wrapped subscriber.
    @inlinable
    public func receive(_ value: Input) -> Subscribers.Demand {
        box.receiveValue(box, value)
    }

    /// Forwards to the wrapped subscriber.
    @inlinable
    public func receive(completion: Subscribers.Completion<Failure>) {
        box.receiveCompletion(box, completion)
    }

    /// The wrapped subscriber's description, or `Anonymous AnySubscriber`.
    public var description: String { box.description }
    /// The wrapped subscriber's custom mirror (or one of its type with no
    /// children); for closures, the mirror of `"Anonymous AnySubscriber"`.
    public var customMirror: Mirror { box.customMirror }
    /// The description.
    public var playgroundDescription: Any { description }
}

/// The box behind ``AnySubscriber``.
///
/// The three entry points are stored functions, not overridden methods: an
/// override reached through the base class runs the unspecialised generic
/// body (slow, and it allocates per value); these non-capturing closures are
/// formed in the `@inlinable` initialisers, where the caller specialises
/// them for the concrete subscriber.
@usableFromInline
internal class AnySubscriberBox<Input, Failure: Error> {
    @usableFromInline let receiveSubscription: (AnySubscriberBox, any Subscription) -> Void
    @usableFromInline let receiveValue: (AnySubscriberBox, Input) -> Subscribers.Demand
    @usableFromInline let receiveCompletion: (AnySubscriberBox, Subscribers.Completion<Failure>) -> Void

    @inlinable
    init(receiveSubscription: @escaping (AnySubscriberBox, any Subscription) -> Void,
         receiveValue: @escaping (AnySubscriberBox, Input) -> Subscribers.Demand,
         receiveCompletion: @escaping (AnySubscriberBox, Subscribers.Completion<Failure>) -> Void) {
        self.receiveSubscription = receiveSubscription
        self.receiveValue = receiveValue
        self.receiveCompletion = receiveCompletion
    }

    @usableFromInline var description: String { "AnySubscriber" }
    @usableFromInline var customMirror: Mirror { Mirror(reflecting: self) }
    /// Whether the wrapped subscriber is an introspection tap (read only
    /// while an `_Introspection` is enabled).
    var wrapsIntrospectionTap: Bool { false }
}

/// `Input` and `Failure` are `S.Input` and `S.Failure`, parameters of their
/// own so that the superclass is named by generic parameters only: the
/// runtime then builds the metadata without looking up `S: Subscriber`, a
/// scan of every conformance record of the image (see `SubjectConduit`).
@usableFromInline
internal final class SubscriberBox<Input, Failure, S: Subscriber>: AnySubscriberBox<Input, Failure>
    where S.Input == Input, S.Failure == Failure
{
    @usableFromInline let subscriber: S

    @inlinable
    init(_ subscriber: S) {
        self.subscriber = subscriber
        super.init(
            receiveSubscription: { box, subscription in
                unsafeDowncast(box, to: SubscriberBox<Input, Failure, S>.self).subscriber.receive(subscription: subscription)
            },
            receiveValue: { box, value in
                unsafeDowncast(box, to: SubscriberBox<Input, Failure, S>.self).subscriber.receive(value)
            },
            receiveCompletion: { box, completion in
                unsafeDowncast(box, to: SubscriberBox<Input, Failure, S>.self).subscriber.receive(completion: completion)
            })
    }

    /// Allocates the box in a function that is never inlined, on purpose.
    ///
    /// Swift 6.3.1's optimiser can promote an object to the stack when it
    /// is created inside a class's method that was inlined into a generic
    /// caller specialised for that class, and stored only in that class's
    /// property. A publisher that keeps `AnySubscriber(subscriber)` in a
    /// property and is subscribed through an operator (`map`, `values`,
    /// ...) then held a box in a dead stack frame: the first event crashed,
    /// in release builds only (AddressSanitizer: stack-use-after-return).
    /// An object allocated by a call that is not inlined cannot be
    /// promoted; once per `AnySubscriber`, so it costs nothing per element.
    /// docs/engineering-notes.md, "Stack promotion of stored objects",
    /// has the reduced case.
    @usableFromInline @inline(never)
    internal static func make(_ subscriber: S) -> SubscriberBox<Input, Failure, S> {
        SubscriberBox(subscriber)
    }

    override var wrapsIntrospectionTap: Bool { subscriber is any IntrospectionTapMarker }

    @usableFromInline override var description: String { String(describing: subscriber) }
    /// As Combine's: the subscriber's own custom mirror, or one of its type
    /// with no children (not the stored properties `Mirror(reflecting:)`
    /// would list).
    @usableFromInline override var customMirror: Mirror {
        (subscriber as? any CustomReflectable)?.customMirror ?? Mirror(subscriber, children: [:])
    }
}

@usableFromInline
internal final class ClosureSubscriberBox<Input, Failure: Error>: AnySubscriberBox<Input, Failure> {
    let onSubscription: (any Subscription) -> Void
    let onValue: (Input) -> Subscribers.Demand
    let onCompletion: (Subscribers.Completion<Failure>) -> Void

    init(receiveSubscription: @escaping (any Subscription) -> Void,
         receiveValue: @escaping (Input) -> Subscribers.Demand,
         receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void) {
        onSubscription = receiveSubscription
        onValue = receiveValue
        onCompletion = receiveCompletion
        super.init(
            receiveSubscription: { box, subscription in
                unsafeDowncast(box, to: ClosureSubscriberBox.self).onSubscription(subscription)
            },
            receiveValue: { box, value in
                unsafeDowncast(box, to: ClosureSubscriberBox.self).onValue(value)
            },
            receiveCompletion: { box, completion in
                unsafeDowncast(box, to: ClosureSubscriberBox.self).onCompletion(completion)
            })
    }

    override var description: String { "Anonymous AnySubscriber" }
    /// Combine reflects the description itself: subject type `String`, no
    /// children (OpenCombine's `AnySubscriberTests.testReflection`).
    override var customMirror: Mirror { Mirror(reflecting: "Anonymous AnySubscriber") }
}
