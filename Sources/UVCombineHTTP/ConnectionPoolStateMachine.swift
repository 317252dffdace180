import HTTPTypes

/// The connection pool as a pure state machine: it owns no socket and no
/// timer; every event returns the ``Action`` the owner performs.
///
/// Connections are kept per ``ConnectionKey`` (scheme, host, port), at most
/// ``Configuration/maximumConnectionsPerHost`` per key; requests beyond the
/// limit wait in a FIFO queue per key. A connection that finished a
/// keep-alive exchange serves the next waiting request or goes idle, with
/// an idle timeout expressed as an action.
///
/// The owner (one per session, on the loop thread) feeds events and runs
/// the returned actions, in this order: the connection action, then the
/// request action. Whenever the pool forgets a connection it says
/// ``ConnectionAction/close(_:)`` (or `closeAndCreate`); the owner then
/// closes the handle and stops that connection's timers, and must not
/// report anything more about it (a connect callback that runs with
/// `UV_ECANCELED` after the close is ignored by the owner).
///
/// ## Request states
///
/// - `queued`: waiting in its key's FIFO for a connection.
/// - `waitingForRetryConnection(c)`: retried after a stale keep-alive
///   connection failed it; waits for the fresh connection `c` created for
///   it alone.
/// - `leased(c, .assigned)`: ``RequestAction/execute(_:on:)`` was returned;
///   no byte written yet.
/// - `leased(c, .writing)`: the owner started writing
///   (``requestWriteStarted(_:)``).
/// - `leased(c, .receiving)`: a response byte arrived
///   (``responseBytesReceived(_:)``).
/// - A finished, failed or cancelled request is forgotten.
///
/// ## Connection states
///
/// - `connecting(reservedFor:)`: ``ConnectionAction/create(_:_:connectDeadline:)``
///   was returned; reserved for a retried request, or for whoever waits
///   first in the queue when it is established.
/// - `idle(deadline)`: kept alive, unused; closed at the deadline.
/// - `leased(r)`: carrying request `r`.
///
/// ## Rules
///
/// - Reuse: an idle connection is reused before a new one is made (the
///   most recently used first); a request never waits while its key is
///   under the limit.
/// - `Connection: close` either way: a request that asked for it, or a
///   response that said so (`keepAlive: false` in ``requestFinished(_:keepAlive:now:)``),
///   closes the connection after the exchange.
/// - Stale keep-alive connections: a server closing an idle connection
///   (``connectionClosed(_:now:)``) removes it. An idempotent request that
///   fails with `.networkConnectionLost` on a *reused* connection before
///   any response byte is retried once, transparently, on a fresh
///   connection (``RequestAction/retry(_:on:)``). Timeouts and other errors
///   are not retried.
/// - Cancellation (AsyncHTTPClient's rule): cancelling a request before
///   any byte was written keeps the connection (it serves the next request
///   or goes idle); cancelling once writing started closes it, because the
///   exchange cannot be completed.
/// - Connect failures and connect timeouts fail the oldest waiting request
///   of the key (or the retried request the connection was made for).
///
/// Impossible transitions (an event for a connection or request in a state
/// where it cannot happen) trap with a message naming the rule and the
/// state. Cancelling an unknown request is allowed and does nothing, so
/// cancel stays idempotent.
///
/// ```swift
/// var pool = ConnectionPoolStateMachine()
/// let key = try HTTPRequestTarget(string: "http://example.com/").key
/// let now = HTTPDeadline(uptimeNanoseconds: 0)
/// let first = pool.executeRequest(.init(1), key: key, method: .get, now: now)
/// // first.connection == .create(#1, key, connectDeadline: 10 s)
/// ```
///
/// Threading: a value type; the owner keeps it under its lock or on the
/// loop thread.
@_spi(HTTPCore) public struct ConnectionPoolStateMachine: Sendable {
    /// Pool limits and timeouts.
    ///
    /// ```swift
    /// var configuration = ConnectionPoolStateMachine.Configuration()
    /// configuration.maximumConnectionsPerHost = 2
    /// var pool = ConnectionPoolStateMachine(configuration: configuration)
    /// ```
    public struct Configuration: Sendable, Equatable {
        /// Connections per key at most (URLSession's
        /// `httpMaximumConnectionsPerHost` default). Default 6.
        public var maximumConnectionsPerHost: Int = 6
        /// How long an idle keep-alive connection is kept. Default 60 s.
        public var idleTimeout: Duration = .seconds(60)
        /// How long establishing a connection (name resolution and TCP
        /// connect) may take. Default 10 s.
        public var connectTimeout: Duration = .seconds(10)

        /// The defaults above.
        public init() {}
    }

    /// A request, named by the owner (unique while the pool knows it).
    ///
    /// ```swift
    /// let id = ConnectionPoolStateMachine.RequestID(7)
    /// print(id) // Prints: "r7"
    /// ```
    public struct RequestID: Hashable, Sendable, CustomStringConvertible {
        /// The owner's number for the request.
        public let rawValue: Int
        /// Wraps the owner's number.
        public init(_ rawValue: Int) { self.rawValue = rawValue }
        /// `r` and the number.
        public var description: String { "r\(rawValue)" }
        /// Hashes the number, as `Int` does.
        ///
        /// ```swift
        /// var hasher = Hasher()
        /// ConnectionPoolStateMachine.RequestID(1).hash(into: &hasher)
        /// ```
        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
        /// The hash a dictionary uses: `Int`'s one-shot path rather than a
        /// streaming `Hasher` (the engine and the pool look these up about
        /// 19 times per request; issue 17).
        ///
        /// ```swift
        /// let hash = ConnectionPoolStateMachine.RequestID(1)._rawHashValue(seed: 0)
        /// ```
        public func _rawHashValue(seed: Int) -> Int { rawValue._rawHashValue(seed: seed) }
    }

    /// A connection, named by the pool in ``ConnectionAction/create(_:_:connectDeadline:)``.
    ///
    /// ```swift
    /// let id = ConnectionPoolStateMachine.ConnectionID(1)
    /// print(id) // Prints: "#1"
    /// ```
    public struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
        /// The pool's number for the connection.
        public let rawValue: Int
        /// Wraps a number (tests name the connections they expect).
        public init(_ rawValue: Int) { self.rawValue = rawValue }
        /// `#` and the number.
        public var description: String { "#\(rawValue)" }
        /// Hashes the number, as `Int` does.
        ///
        /// ```swift
        /// var hasher = Hasher()
        /// ConnectionPoolStateMachine.ConnectionID(1).hash(into: &hasher)
        /// ```
        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
        /// The hash a dictionary uses: `Int`'s one-shot path rather than a
        /// streaming `Hasher` (the engine and the pool look these up about
        /// 19 times per request; issue 17).
        ///
        /// ```swift
        /// let hash = ConnectionPoolStateMachine.ConnectionID(1)._rawHashValue(seed: 0)
        /// ```
        public func _rawHashValue(seed: Int) -> Int { rawValue._rawHashValue(seed: seed) }
    }

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

    /// A request's progress; see the type's documentation.
    internal enum RequestPhase: Equatable {
        case queued
        case waitingForRetryConnection(ConnectionID)
        case leased(ConnectionID, Exchange)
    }

    /// How far a leased request got.
    internal enum Exchange: Equatable {
        case assigned, writing, receiving
    }

    internal struct RequestState {
        var key: ConnectionKey
        var isIdempotent: Bool
        var closesConnection: Bool
        var retried: Bool
        var phase: RequestPhase
    }

    /// A connection's state; see the type's documentation.
    internal enum ConnectionPhase: Equatable {
        case connecting(reservedFor: RequestID?)
        case idle(HTTPDeadline)
        case leased(RequestID)
    }

    internal struct ConnectionState {
        var key: ConnectionKey
        var phase: ConnectionPhase
        /// Exchanges completed with keep-alive: a connection with any is a
        /// reused one.
        var completedExchanges: Int
    }

    /// Per-key bookkeeping.
    internal struct KeyState {
        /// Requests waiting for a connection, oldest first.
        var queue: [RequestID] = []
        /// Idle connections, most recently used last.
        var idle: [ConnectionID] = []
        /// Connections of this key in any state.
        var connectionCount = 0
        /// Connecting connections not reserved for a retry: each will
        /// serve the queue's head when established.
        var unreservedConnecting = 0
    }

    /// The limits and timeouts in force.
    public let configuration: Configuration
    private var requests: [RequestID: RequestState] = [:]
    private var connections: [ConnectionID: ConnectionState] = [:]
    private var keys: [ConnectionKey: KeyState] = [:]
    private var nextConnectionNumber = 1
    private var isShutDown = false

    /// Creates an empty pool.
    public init(configuration: Configuration = Configuration()) {
        precondition(configuration.maximumConnectionsPerHost >= 1, "ConnectionPoolStateMachine: maximumConnectionsPerHost must be at least 1")
        self.configuration = configuration
    }

    /// Whether a method is idempotent (RFC 9110 section 9.2.2), and so may
    /// be retried on a fresh connection.
    public static func isIdempotent(_ method: HTTPRequest.Method) -> Bool {
        switch method {
        case .get, .head, .options, .trace, .put, .delete: true
        default: false
        }
    }

    // MARK: Introspection

    /// Connections of `key` in any state.
    public func connectionCount(for key: ConnectionKey) -> Int { keys[key]?.connectionCount ?? 0 }
    /// Idle connections of `key`.
    public func idleConnectionCount(for key: ConnectionKey) -> Int { keys[key]?.idle.count ?? 0 }
    /// Requests of `key` waiting in its queue.
    public func queuedRequestCount(for key: ConnectionKey) -> Int { keys[key]?.queue.count ?? 0 }
    /// Whether the pool knows no request and no connection.
    public var isEmpty: Bool { requests.isEmpty && connections.isEmpty }

    // MARK: Events

    /// A task wants to send a request.
    ///
    /// - Parameters:
    ///   - request: the owner's unique name for it.
    ///   - key: where it goes (``HTTPRequestTarget/key``).
    ///   - method: decides idempotency, hence whether it may be retried.
    ///   - closesConnection: whether the request says `Connection: close`.
    ///   - now: the current time, from which a new connection's connect
    ///     deadline is counted.
    /// - Returns: `execute` on an idle connection (and `cancelIdleTimeout`),
    ///   or `create` a connection, or nothing (queued); `fail` with
    ///   `.resourceUnavailable` after ``shutdown(now:)``.
    public mutating func executeRequest(
        _ request: RequestID,
        key: ConnectionKey,
        method: HTTPRequest.Method,
        closesConnection: Bool = false,
        now: HTTPDeadline
    ) -> Action {
        if isShutDown {
            return Action(request: .fail(request, UVURLError(.resourceUnavailable, detail: "the session was shut down")))
        }
        // Index-based reads and writes here and below: one hash per
        // dictionary, and no copy of a whole state (its key's host string
        // retained and released) to read one field (issue 17).
        guard requests.index(forKey: request) == nil else {
            violation("executeRequest: request IDs are unique while the pool knows them, but \(request) is already \(requests[request]!.phase)")
        }
        var state = RequestState(
            key: key,
            isIdempotent: Self.isIdempotent(method),
            closesConnection: closesConnection,
            retried: false,
            phase: .queued
        )
        // Read first, then mutate through `!`: an optional-chained
        // mutation (`keys[key]?.idle.popLast()`) heap-allocates the
        // dictionary's coroutine frame on every call.
        if let keyIndex = keys.index(forKey: key), !keys.values[keyIndex].idle.isEmpty {
            let connection = keys.values[keyIndex].idle.removeLast()
            state.phase = .leased(connection, .assigned)
            requests[request] = state
            connections[connection]!.phase = .leased(request)
            return Action(connection: .cancelIdleTimeout(connection), request: .execute(request, on: connection))
        }
        requests[request] = state
        keys[key, default: KeyState()].queue.append(request)
        return Action(connection: createIfNeeded(for: key, now: now))
    }

    /// The connection is established and ready.
    ///
    /// - Returns: `execute` the request it was made for or the oldest
    ///   waiting one, or `scheduleIdleTimeout` when nobody waits.
    public mutating func connectionEstablished(_ connection: ConnectionID, now: HTTPDeadline) -> Action {
        guard case .connecting(let reserved)? = connections[connection]?.phase else {
            violation("connectionEstablished: only a connecting connection can be established, but \(connection) is \(describe(connection))")
        }
        let key = connections[connection]!.key
        if let reserved {
            return lease(connection, to: reserved)
        }
        keys[key]!.unreservedConnecting -= 1
        if !keys[key]!.queue.isEmpty {
            let next = keys[key]!.queue.removeFirst()
            return lease(connection, to: next)
        }
        return Action(connection: makeIdle(connection, now: now))
    }

    /// Establishing the connection failed (resolution, refusal, reset).
    ///
    /// - Returns: `close` it (or `closeAndCreate` another when requests
    ///   still wait), and `fail` the request it was made for or the oldest
    ///   waiting one with `error`.
    public mutating func connectionFailed(_ connection: ConnectionID, error: UVURLError, now: HTTPDeadline) -> Action {
        guard case .connecting(let reserved)? = connections[connection]?.phase else {
            violation("connectionFailed: only a connecting connection can fail to connect, but \(connection) is \(describe(connection))")
        }
        let key = connections[connection]!.key
        if reserved == nil { keys[key]!.unreservedConnecting -= 1 }
        // Pick the request that pays for the failure before deciding
        // whether the rest of the queue needs another connection.
        let victim: RequestID?
        if let reserved {
            victim = reserved
        } else if !keys[key]!.queue.isEmpty {
            victim = keys[key]!.queue.removeFirst()
        } else {
            victim = nil
        }
        if let victim { requests[victim] = nil }
        let connectionAction = remove(connection, now: now)
        guard let victim else { return Action(connection: connectionAction) }
        return Action(connection: connectionAction, request: .fail(victim, error))
    }

    /// The connect timer of a connection fired.
    ///
    /// A connection still connecting fails as in
    /// ``connectionFailed(_:error:now:)`` with `.timedOut` (kind
    /// `.connect`); otherwise the timer was stale and nothing happens.
    public mutating func connectTimeoutFired(_ connection: ConnectionID, now: HTTPDeadline) -> Action {
        guard case .connecting? = connections[connection]?.phase else { return .none }
        return connectionFailed(connection, error: .timedOut(.connect), now: now)
    }

    /// The owner handed the first request byte to the socket.
    public mutating func requestWriteStarted(_ request: RequestID) {
        guard let index = requests.index(forKey: request),
              case .leased(let connection, .assigned) = requests.values[index].phase else {
            violation("requestWriteStarted: only an assigned request starts writing, but \(request) is \(describe(request))")
        }
        requests.values[index].phase = .leased(connection, .writing)
    }

    /// The first response byte for the request arrived (it can no longer
    /// be retried).
    public mutating func responseBytesReceived(_ request: RequestID) {
        guard let index = requests.index(forKey: request),
              case .leased(let connection, let exchange) = requests.values[index].phase, exchange != .assigned else {
            violation("responseBytesReceived: a response comes after the request was written, but \(request) is \(describe(request))")
        }
        requests.values[index].phase = .leased(connection, .receiving)
    }

    /// The response ended; `keepAlive` is the parser's decision
    /// (``HTTPResponseParser/Event/end(keepAlive:)``).
    ///
    /// - Returns: `execute` the next waiting request on the connection, or
    ///   `scheduleIdleTimeout`; or `close` it (possibly `closeAndCreate`)
    ///   when the request or the response said `Connection: close`.
    public mutating func requestFinished(_ request: RequestID, keepAlive: Bool, now: HTTPDeadline) -> Action {
        guard let index = requests.index(forKey: request),
              case .leased(let connection, let exchange) = requests.values[index].phase, exchange != .assigned else {
            violation("requestFinished: only a written request can finish, but \(request) is \(describe(request))")
        }
        let closes = requests.values[index].closesConnection
        requests.remove(at: index)
        if keepAlive && !closes {
            let connectionIndex = connections.index(forKey: connection)!
            connections.values[connectionIndex].completedExchanges += 1
            return release(connection, now: now)
        }
        return Action(connection: remove(connection, now: now))
    }

    /// The request failed: a transport error on its connection, or one of
    /// its own timeouts (idle read, total) while queued or leased.
    ///
    /// - Returns: for a leased request, `close` its connection and either
    ///   `retry` it (see the type's rules) or `fail` it with `error`; for
    ///   a waiting request, `fail` it.
    public mutating func requestFailed(_ request: RequestID, error: UVURLError, now: HTTPDeadline) -> Action {
        guard let state = requests[request] else {
            violation("requestFailed: only a known request can fail, but \(request) is \(describe(request))")
        }
        switch state.phase {
        case .queued:
            requests[request] = nil
            keys[state.key]!.queue.removeAll { $0 == request }
            return Action(request: .fail(request, error))
        case .waitingForRetryConnection(let connection):
            requests[request] = nil
            unreserve(connection)
            return Action(request: .fail(request, error))
        case .leased(let connection, let exchange):
            let reused = connections[connection]!.completedExchanges > 0
            let retry = error.code == .networkConnectionLost && state.isIdempotent && !state.retried
                && reused && exchange != .receiving
            if retry {
                let fresh = newConnectionID()
                let deadline = now.advanced(by: configuration.connectTimeout)
                forget(connection)
                connections[fresh] = ConnectionState(key: state.key, phase: .connecting(reservedFor: request), completedExchanges: 0)
                keys[state.key]!.connectionCount += 1
                requests[request]!.retried = true
                requests[request]!.phase = .waitingForRetryConnection(fresh)
                return Action(
                    connection: .closeAndCreate(close: connection, create: fresh, state.key, connectDeadline: deadline),
                    request: .retry(request, on: .newConnection(fresh))
                )
            }
            requests[request] = nil
            return Action(connection: remove(connection, now: now), request: .fail(request, error))
        }
    }

    /// The task was cancelled. Idempotent: an unknown (finished, failed or
    /// already cancelled) request is ignored.
    ///
    /// - Returns: nothing for a waiting request; for a leased one, the
    ///   connection goes to the next request or idles when nothing was
    ///   written yet, and is closed otherwise.
    public mutating func cancelRequest(_ request: RequestID, now: HTTPDeadline) -> Action {
        guard let state = requests[request] else { return .none }
        requests[request] = nil
        switch state.phase {
        case .queued:
            keys[state.key]!.queue.removeAll { $0 == request }
            return .none
        case .waitingForRetryConnection(let connection):
            unreserve(connection)
            return .none
        case .leased(let connection, .assigned):
            return release(connection, now: now)
        case .leased(let connection, .writing), .leased(let connection, .receiving):
            return Action(connection: remove(connection, now: now))
        }
    }

    /// The peer closed an idle connection (end of stream or a reset while
    /// nothing was in flight).
    public mutating func connectionClosed(_ connection: ConnectionID, now: HTTPDeadline) -> Action {
        guard case .idle? = connections[connection]?.phase else {
            violation("connectionClosed: only an idle connection can close on its own (report requestFinished or requestFailed for a leased one, connectionFailed for a connecting one), but \(connection) is \(describe(connection))")
        }
        return Action(connection: remove(connection, now: now))
    }

    /// The idle timer of a connection fired.
    ///
    /// - Returns: `close` when the connection is idle and its deadline has
    ///   passed; `scheduleIdleTimeout` again when the timer fired early;
    ///   nothing for a stale timer (the connection is in use or gone).
    public mutating func idleTimeoutFired(_ connection: ConnectionID, now: HTTPDeadline) -> Action {
        guard case .idle(let deadline)? = connections[connection]?.phase else { return .none }
        if now < deadline {
            return Action(connection: .scheduleIdleTimeout(connection, deadline))
        }
        return Action(connection: remove(connection, now: now))
    }

    /// Shuts the pool down: every known request fails with `.cancelled`,
    /// every connection closes, and later requests fail with
    /// `.resourceUnavailable`.
    public mutating func shutdown(now: HTTPDeadline) -> ShutdownAction {
        isShutDown = true
        let failed = requests.keys.sorted { $0.rawValue < $1.rawValue }
        let closed = connections.keys.sorted { $0.rawValue < $1.rawValue }
        requests.removeAll()
        connections.removeAll()
        keys.removeAll()
        return ShutdownAction(
            failedRequests: failed,
            closedConnections: closed,
            error: UVURLError(.cancelled, detail: "the session was shut down")
        )
    }

    // MARK: Transitions

    private mutating func newConnectionID() -> ConnectionID {
        defer { nextConnectionNumber += 1 }
        return ConnectionID(nextConnectionNumber)
    }

    /// Creates a connection when the key's queue has more requests than
    /// connections on their way, within the limit.
    private mutating func createIfNeeded(for key: ConnectionKey, now: HTTPDeadline) -> ConnectionAction {
        guard let state = keys[key],
            state.queue.count > state.unreservedConnecting,
            state.connectionCount < configuration.maximumConnectionsPerHost
        else { return .none }
        let connection = newConnectionID()
        connections[connection] = ConnectionState(key: key, phase: .connecting(reservedFor: nil), completedExchanges: 0)
        keys[key]!.connectionCount += 1
        keys[key]!.unreservedConnecting += 1
        return .create(connection, key, connectDeadline: now.advanced(by: configuration.connectTimeout))
    }

    /// Leases an established connection to a request.
    private mutating func lease(_ connection: ConnectionID, to request: RequestID) -> Action {
        connections[connection]!.phase = .leased(request)
        requests[request]!.phase = .leased(connection, .assigned)
        return Action(request: .execute(request, on: connection))
    }

    /// A connection free for reuse: to the oldest waiting request, or idle.
    private mutating func release(_ connection: ConnectionID, now: HTTPDeadline) -> Action {
        let index = connections.index(forKey: connection)!
        let keyIndex = keys.index(forKey: connections.values[index].key)!
        if !keys.values[keyIndex].queue.isEmpty {
            let next = keys.values[keyIndex].queue.removeFirst()
            return lease(connection, to: next)
        }
        let deadline = now.advanced(by: configuration.idleTimeout)
        connections.values[index].phase = .idle(deadline)
        keys.values[keyIndex].idle.append(connection)
        return Action(connection: .scheduleIdleTimeout(connection, deadline))
    }

    private mutating func makeIdle(_ connection: ConnectionID, now: HTTPDeadline) -> ConnectionAction {
        let deadline = now.advanced(by: configuration.idleTimeout)
        let index = connections.index(forKey: connection)!
        connections.values[index].phase = .idle(deadline)
        keys[connections.values[index].key]!.idle.append(connection)
        return .scheduleIdleTimeout(connection, deadline)
    }

    /// Forgets a connection and says to close it, creating a replacement
    /// when requests of its key still wait.
    private mutating func remove(_ connection: ConnectionID, now: HTTPDeadline) -> ConnectionAction {
        let key = connections[connection]!.key
        forget(connection)
        if case .create(let fresh, let key, let deadline) = createIfNeeded(for: key, now: now) {
            return .closeAndCreate(close: connection, create: fresh, key, connectDeadline: deadline)
        }
        return .close(connection)
    }

    private mutating func forget(_ connection: ConnectionID) {
        let state = connections.removeValue(forKey: connection)!
        keys[state.key]!.connectionCount -= 1
        if case .idle = state.phase {
            keys[state.key]!.idle.removeAll { $0 == connection }
        }
    }

    /// A connection made for a retried request that no longer needs it
    /// serves the queue like any other.
    private mutating func unreserve(_ connection: ConnectionID) {
        connections[connection]!.phase = .connecting(reservedFor: nil)
        keys[connections[connection]!.key]!.unreservedConnecting += 1
    }

    // MARK: Messages

    private func describe(_ connection: ConnectionID) -> String {
        guard let state = connections[connection] else { return "unknown to the pool" }
        switch state.phase {
        case .connecting(let reserved): return reserved.map { "connecting for \($0)" } ?? "connecting"
        case .idle: return "idle"
        case .leased(let request): return "leased to \(request)"
        }
    }

    private func describe(_ request: RequestID) -> String {
        guard let state = requests[request] else { return "unknown to the pool" }
        switch state.phase {
        case .queued: return "queued"
        case .waitingForRetryConnection(let connection): return "waiting for retry connection \(connection)"
        case .leased(let connection, let exchange): return "leased on \(connection), \(exchange)"
        }
    }

    private func violation(_ rule: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
        httpViolation("ConnectionPoolStateMachine.\(rule)", file: file, line: line)
    }
}
