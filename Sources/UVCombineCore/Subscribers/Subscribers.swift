/// A namespace for types that serve as subscribers.
///
/// ```swift
/// let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
/// ```
public enum Subscribers {}
