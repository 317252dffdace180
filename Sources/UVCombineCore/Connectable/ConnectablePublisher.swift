/// A publisher that provides an explicit means of connecting and cancelling
/// publication.
///
/// A connectable publisher produces no elements until `connect()` is called,
/// even when its subscribers have demand. Attach every subscriber first, then
/// connect: none of them can miss an element. Use ``autoconnect()`` to
/// connect on the first subscriber instead.
///
/// Threading: `connect()` may be called from any thread. Keep the returned
/// cancellable: cancelling it, or letting it deinitialise when it is an
/// ``AnyCancellable``, stops publishing.
///
/// ```swift
/// let connectable = subject.makeConnectable()
/// let c1 = connectable.sink { print("1: \($0)") }
/// let c2 = connectable.sink { print("2: \($0)") }
/// let connection = connectable.connect()
/// subject.send(7) // Prints: "1: 7", "2: 7"
/// ```
public protocol ConnectablePublisher<Output, Failure>: Publisher {
    /// Connects to the publisher, allowing it to produce elements, and
    /// returns an instance with which to cancel publishing.
    ///
    /// ```swift
    /// let connection = connectable.connect()
    /// connection.cancel() // stops the upstream
    /// ```
    func connect() -> any Cancellable
}
