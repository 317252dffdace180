/// The reference count that `autoconnect()` and `share()` keep: the first
/// subscriber connects, the last one to leave disconnects. A pure state
/// machine; its owner keeps it in a mutex, decides with it under the lock
/// and connects or cancels outside it.
///
/// Combine's rules it encodes: a subscriber that arrives while the first is
/// still connecting on another thread joins that connection; one that
/// arrives re-entrantly (on the connecting thread, from inside the
/// upstream's subscription) connects again, and the connection made last
/// is kept, counted once; when every subscriber left while connecting, the
/// new connection is abandoned.
///
/// ```swift
/// var count = ConnectionRefCount<any Cancellable>.disconnected
/// if count.join(thread: currentThreadIdentity()) == .connect {
///     let outcome = count.didConnect(upstream.connect(), reentrant: false)
/// }
/// ```
///
/// Threading: a value; its owner serialises access.
@usableFromInline
internal enum ConnectionRefCount<Connection> {
    /// No connection: the next subscriber connects.
    case disconnected
    /// The first subscriber is connecting on `thread`; `refcount` counts the
    /// subscribers meanwhile.
    case connecting(refcount: Int, thread: UInt)
    case connected(refcount: Int, connection: Connection)
    /// The upstream completed (`share()`): nothing connects again.
    case finished

    /// What a new subscriber does after ``join(thread:)``.
    @usableFromInline
    internal enum Role {
        /// Joins the connection there is (or is being made).
        case join
        /// Connects: it is the first.
        case connect
        /// Connects again: it arrived re-entrantly, during the first connect.
        case reconnect
    }

    /// What the owner does with a connection after ``didConnect(_:reentrant:)``.
    @usableFromInline
    internal enum Outcome {
        case kept
        /// Every subscriber left while it was being made: cancel it.
        case abandoned(Connection)
        /// A newer connection (re-entrant) took its place.
        case replaced(Connection)
    }

    /// Counts a subscriber in.
    @inlinable
    internal mutating func join(thread me: UInt) -> Role {
        switch self {
        case .disconnected:
            self = .connecting(refcount: 1, thread: me)
            return .connect
        case .connecting(let refcount, let thread):
            if thread == me { return .reconnect }
            self = .connecting(refcount: refcount + 1, thread: thread)
            return .join
        case .connected(let refcount, let connection):
            self = .connected(refcount: refcount + 1, connection: connection)
            return .join
        case .finished:
            return .join
        }
    }

    /// Records `connection`, made for a subscriber whose role was
    /// `.connect` (`reentrant` false) or `.reconnect`.
    @inlinable
    internal mutating func didConnect(_ connection: Connection, reentrant: Bool) -> Outcome {
        switch self {
        case .finished:
            // The upstream completed during the connect.
            return .kept
        case .connecting(let refcount, _) where !reentrant:
            if refcount == 0 {
                self = .disconnected
                return .abandoned(connection)
            }
            self = .connected(refcount: refcount, connection: connection)
            return .kept
        case .connected(_, let old):
            // Combine keeps the connection made last, counted once.
            self = .connected(refcount: 1, connection: connection)
            return .replaced(old)
        case .connecting, .disconnected:
            self = .connected(refcount: 1, connection: connection)
            return .kept
        }
    }

    /// Counts a subscriber out; returns the connection to cancel when it
    /// was the last.
    @inlinable
    internal mutating func leave() -> Connection? {
        switch self {
        case .disconnected, .finished:
            return nil
        case .connecting(let refcount, let thread):
            // The connection is abandoned when its connect returns.
            self = .connecting(refcount: Swift.max(refcount - 1, 0), thread: thread)
            return nil
        case .connected(let refcount, let connection):
            if refcount > 1 {
                self = .connected(refcount: refcount - 1, connection: connection)
                return nil
            }
            self = .disconnected
            return connection
        }
    }
}
