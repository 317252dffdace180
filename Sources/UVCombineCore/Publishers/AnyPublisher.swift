/// A publisher that performs type erasure by wrapping another publisher.
///
/// Use it at API boundaries so the concrete operator chain stays private.
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
    @usableFromInline internal let box: AnyPublisherBox<Output, Failure>

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
            box = PublisherBox(publisher)
        }
    }

    /// Subscribes `subscriber` to the wrapped publisher.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        box.receive(subscriber: AnySubscriber(subscriber))
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

@usableFromInline
internal class AnyPublisherBox<Output, Failure: Error> {
    @inlinable init() {}
    @usableFromInline func receive(subscriber: AnySubscriber<Output, Failure>) {
        violation("abstract AnyPublisherBox.receive(subscriber:)")
    }
}

@usableFromInline
internal final class PublisherBox<P: Publisher>: AnyPublisherBox<P.Output, P.Failure> {
    @usableFromInline let publisher: P
    @inlinable init(_ publisher: P) { self.publisher = publisher }
    @inlinable override func receive(subscriber: AnySubscriber<P.Output, P.Failure>) {
        publisher.receive(subscriber: subscriber)
    }
}
