/// A publisher that performs type erasure by wrapping another publisher.
///
/// Use it at API boundaries so the concrete operator chain stays private.
/// Erasing costs one allocation (the closure below); subscribing through it
/// runs the wrapped publisher's specialised code.
/// Threading: as the wrapped publisher.
///
/// ```swift
/// func numbers() -> AnyPublisher<Int, Never> {
///     [1, 2, 3].publisher.map { $0 * 10 }.eraseToAnyPublisher()
/// }
/// ```
@frozen
public struct AnyPublisher<Output, Failure: Error>: Publisher, CustomStringConvertible,
    CustomPlaygroundDisplayConvertible
{
    /// Subscribes an erased subscriber to the wrapped publisher. A closure
    /// formed in the `@inlinable` initialiser (so specialised for the
    /// concrete publisher) rather than a box class whose overridden method
    /// would run unspecialised generic code.
    @usableFromInline internal let subscribeErased: (AnySubscriber<Output, Failure>) -> Void

    /// Wraps `publisher`; wrapping an `AnyPublisher` returns it unchanged.
    ///
    /// ```swift
    /// let erased = AnyPublisher(Just(1))
    /// ```
    @inlinable
    public init<P: Publisher>(_ publisher: P) where P.Output == Output, P.Failure == Failure {
        if let already = publisher as? AnyPublisher<Output, Failure> {
            self = already
        } else {
            subscribeErased = { publisher.receive(subscriber: $0) }
        }
    }

    /// Subscribes `subscriber` to the wrapped publisher.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subscribeErased(AnySubscriber(subscriber))
    }

    /// `AnyPublisher`, as Combine describes it.
    public var description: String { "AnyPublisher" }
    /// The description.
    public var playgroundDescription: Any { description }
}

extension Publisher {
    /// Wraps this publisher with a type eraser.
    ///
    /// ```swift
    /// let erased: AnyPublisher<Int, Never> = Just(1).eraseToAnyPublisher()
    /// ```
    @inlinable
    public func eraseToAnyPublisher() -> AnyPublisher<Output, Failure> {
        AnyPublisher(self)
    }
}
