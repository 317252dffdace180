/// A protocol indicating that an activity or action supports cancellation.
///
/// Calling `cancel()` frees the resources the activity holds and stops
/// side effects such as timers and network requests. Cancellation is
/// idempotent and may be called from any thread.
///
/// ```swift
/// let connection: any Cancellable = connectable.connect()
/// connection.cancel()
/// ```
public protocol Cancellable {
    /// Cancel the activity.
    func cancel()
}

extension Cancellable {
    /// Stores this cancellable in the given collection, wrapped in an
    /// ``AnyCancellable``.
    ///
    /// ```swift
    /// var bag: [AnyCancellable] = []
    /// timer.connect().store(in: &bag)
    /// ```
    @inlinable
    public func store<C: RangeReplaceableCollection>(in collection: inout C)
        where C.Element == AnyCancellable
    {
        AnyCancellable(self).store(in: &collection)
    }

    /// Stores this cancellable in the given set, wrapped in an
    /// ``AnyCancellable``.
    ///
    /// ```swift
    /// var storage = Set<AnyCancellable>()
    /// timer.connect().store(in: &storage)
    /// ```
    @inlinable
    public func store(in set: inout Set<AnyCancellable>) {
        AnyCancellable(self).store(in: &set)
    }
}
