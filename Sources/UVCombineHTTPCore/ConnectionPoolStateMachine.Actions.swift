// What the pool asks of its owner: one connection action and one request
// action per event (`Action`), and what shutting down asks (`ShutdownAction`).

extension ConnectionPoolStateMachine {
    /// Where a retried request runs.
    ///
    /// ```swift
    /// if case .retry(let request, on: .newConnection(let connection)) = action.request {
    ///     // reset the request's parser and write state; execute it on `connection` once established
    /// }
    /// ```
    public enum RetryTarget: Hashable, Sendable {
        /// A fresh connection, created by the same action, reserved for it.
        case newConnection(ConnectionID)
        /// Back at the head of its key's queue: an HTTP/2 stream the server
        /// never processed (REFUSED_STREAM, or above a GOAWAY's last stream
        /// id); it runs on the next stream free on a usable connection.
        case queue
    }

    /// What to do about a request.
    ///
    /// ```swift
    /// switch action.request {
    /// case .none: break
    /// case .execute(let request, on: let connection): write(request, on: connection)
    /// case .fail(let request, let error): fail(request, error)
    /// case .retry(let request, on: .newConnection(let connection)): reset(request, waitingFor: connection)
    /// }
    /// ```
    public enum RequestAction: Equatable, Sendable {
        /// Nothing to do for any request.
        case none
        /// Write the request on this established connection.
        case execute(RequestID, on: ConnectionID)
        /// Fail the task with this error.
        case fail(RequestID, UVURLError)
        /// The request's connection went stale before any response byte:
        /// reset its parser and write state and wait; it is executed on
        /// the given fresh connection once that is established. Nothing is
        /// sent downstream.
        case retry(RequestID, on: RetryTarget)

        /// Equal cases with equal values; errors must agree on code and
        /// detail.
        public static func == (lhs: RequestAction, rhs: RequestAction) -> Bool {
            switch (lhs, rhs) {
            case (.none, .none): true
            case (.execute(let r1, let c1), .execute(let r2, let c2)): r1 == r2 && c1 == c2
            case (.fail(let r1, let e1), .fail(let r2, let e2)): r1 == r2 && e1 == e2 && e1.detail == e2.detail
            case (.retry(let r1, let t1), .retry(let r2, let t2)): r1 == r2 && t1 == t2
            default: false
            }
        }
    }

    /// What to do about connections.
    ///
    /// ```swift
    /// switch action.connection {
    /// case .none: break
    /// case .create(let connection, let key, let deadline): open(connection, to: key, timeoutAt: deadline)
    /// case .scheduleIdleTimeout(let connection, let deadline): armIdleTimer(connection, at: deadline)
    /// case .cancelIdleTimeout(let connection): stopIdleTimer(connection)
    /// case .close(let connection): close(connection)
    /// case .closeAndCreate(let old, let new, let key, let deadline):
    ///     close(old)
    ///     open(new, to: key, timeoutAt: deadline)
    /// }
    /// ```
    public enum ConnectionAction: Equatable, Sendable {
        /// Nothing to do for any connection.
        case none
        /// Open a connection for `key`, and arm its connect timer for
        /// `connectDeadline` (report ``connectTimeoutFired(_:now:)``).
        case create(ConnectionID, ConnectionKey, connectDeadline: HTTPDeadline)
        /// Arm (or re-arm) the connection's idle timer for the deadline
        /// (report ``idleTimeoutFired(_:now:)``).
        case scheduleIdleTimeout(ConnectionID, HTTPDeadline)
        /// Stop the connection's idle timer; it is in use again.
        case cancelIdleTimeout(ConnectionID)
        /// Close the connection and stop its timers; the pool forgot it.
        case close(ConnectionID)
        /// `close(close)` then `create(create, key, connectDeadline:)`.
        case closeAndCreate(close: ConnectionID, create: ConnectionID, ConnectionKey, connectDeadline: HTTPDeadline)
    }

    /// The actions for one event: at most one about connections and one
    /// about requests. Run the connection action first.
    ///
    /// ```swift
    /// let action = pool.connectionEstablished(connection, now: now)
    /// run(action.connection) // first
    /// run(action.request)    // then
    /// ```
    public struct Action: Equatable, Sendable {
        /// What to do about connections; run it first.
        public var connection: ConnectionAction
        /// What to do about a request; run it second.
        public var request: RequestAction

        /// Creates an action pair.
        public init(connection: ConnectionAction = .none, request: RequestAction = .none) {
            self.connection = connection
            self.request = request
        }

        /// Nothing to do.
        public static let none = Action()
    }

    /// What ``shutdown(now:)`` asks of the owner.
    ///
    /// ```swift
    /// let shutdown = pool.shutdown(now: now)
    /// shutdown.closedConnections.forEach { close($0) }
    /// shutdown.failedRequests.forEach { fail($0, shutdown.error) }
    /// ```
    public struct ShutdownAction: Equatable, Sendable {
        /// Fail these tasks with `error`.
        public var failedRequests: [RequestID]
        /// Close these connections.
        public var closedConnections: [ConnectionID]
        /// `.cancelled`, "the session was shut down".
        public var error: UVURLError
    }
}
