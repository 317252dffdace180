import HTTPTypes

// The pool's state machine: its state, and one method per event, each
// returning what the owner does. Around it, as ConnectionPoolStateMachine*:
// .Identifiers.swift (request and connection IDs), .Actions.swift (what an
// event asks of the owner), .State.swift (per request, connection and key)
// and +Transitions.swift (the steps the events are made of).

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
public struct ConnectionPoolStateMachine: Sendable {
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
        /// HTTP/2 connections per key at most: another is opened only when
        /// all are full (ConnectionPoolStateMachine+Multiplexing.swift).
        /// Default 1.
        public var maximumMultiplexedConnectionsPerHost: Int = 1
        /// Streams one HTTP/2 connection carries at most, whatever the
        /// server allows (it may announce no limit). Default 256.
        public var maximumStreamsPerConnection: Int = 256
        /// How often one request whose HTTP/2 stream the server refused
        /// without processing it (above a GOAWAY's last stream id, or
        /// REFUSED_STREAM) is sent again before it fails: a server that
        /// ends every connection after N requests refuses the rest of a
        /// burst each time. Default 8.
        public var maximumStreamRefusals: Int = 8

        /// The defaults above.
        public init() {}
    }

    /// The limits and timeouts in force.
    public let configuration: Configuration

    // `internal` only for the transitions in
    // ConnectionPoolStateMachine+Transitions.swift (a stored property cannot
    // live in an extension); nothing outside the pool touches them.
    /// Every request the pool knows, by its owner's ID.
    internal var requests: [RequestID: RequestState] = [:]
    /// Every connection the pool knows.
    internal var connections: [ConnectionID: ConnectionState] = [:]
    /// Queues, idle lists and counts per key, by slot. A key keeps its
    /// slot for the pool's life (as it kept its entry before slots).
    internal var keyStates: [KeyState] = []
    /// Each key's slot in ``keyStates``.
    internal var keySlots: [ConnectionKey: Int] = [:]
    /// The slot ``keySlot(for:)`` found last (checked against
    /// ``keyStates``' count: shutdown empties it).
    internal var lastKeySlot = 0
    /// The number the next new connection gets.
    internal var nextConnectionNumber = 1
    private var isShutDown = false
    /// ``Configuration/idleTimeout`` and ``Configuration/connectTimeout``
    /// in nanoseconds, converted once (``HTTPDeadline/advanced(byNanoseconds:)``).
    internal let idleTimeoutNanoseconds: UInt64
    internal let connectTimeoutNanoseconds: UInt64

    /// Creates an empty pool.
    public init(configuration: Configuration = Configuration()) {
        precondition(configuration.maximumConnectionsPerHost >= 1, "ConnectionPoolStateMachine: maximumConnectionsPerHost must be at least 1")
        self.configuration = configuration
        idleTimeoutNanoseconds = HTTPDeadline.nanoseconds(of: configuration.idleTimeout)
        connectTimeoutNanoseconds = HTTPDeadline.nanoseconds(of: configuration.connectTimeout)
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
    public func connectionCount(for key: ConnectionKey) -> Int { keySlots[key].map { keyStates[$0].connectionCount } ?? 0 }
    /// Idle connections of `key`.
    public func idleConnectionCount(for key: ConnectionKey) -> Int { keySlots[key].map { keyStates[$0].idle.count } ?? 0 }
    /// Requests of `key` waiting in its queue.
    public func queuedRequestCount(for key: ConnectionKey) -> Int { keySlots[key].map { keyStates[$0].queue.count } ?? 0 }
    /// Whether the pool knows no request and no connection.
    public var isEmpty: Bool { requests.isEmpty && connections.isEmpty }

    // MARK: The request-connection link
    //
    // The pool is the one owner of which request runs on which connection
    // (a request's `leased(c, _)` and its connection's `leased(r)` are
    // set and cleared together, in its transitions): its owner asks here
    // instead of keeping links of its own.

    /// The connection `request` is leased on, or nil (queued, waiting for
    /// a retry's connection, or unknown).
    ///
    /// ```swift
    /// if let connection = pool.connection(leasedTo: request) { write(on: connection) }
    /// ```
    public func connection(leasedTo request: RequestID) -> ConnectionID? {
        guard let index = requests.index(forKey: request),
              case .leased(let connection, _) = requests.values[index].phase else { return nil }
        return connection
    }

    /// The request `connection` carries, or nil (connecting, idle, or
    /// unknown).
    ///
    /// ```swift
    /// if let request = pool.request(leasing: connection) { feed(bytes, to: request) }
    /// ```
    public func request(leasing connection: ConnectionID) -> RequestID? {
        guard let index = connections.index(forKey: connection),
              case .leased(let request) = connections.values[index].phase else { return nil }
        return request
    }

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
        let slot = keySlot(for: key)
        if !keyStates[slot].http2Connections.isEmpty, let connection = multiplexedConnectionWithRoom(slot) {
            requests[request] = RequestState(keySlot: slot, isIdempotent: Self.isIdempotent(method),
                                             closesConnection: false, retried: false, phase: .leased(connection, .assigned))
            let wasIdle = addStream(on: connection)
            return Action(connection: wasIdle ? .cancelIdleTimeout(connection) : .none,
                          request: .execute(request, on: connection))
        }
        var state = RequestState(
            keySlot: slot,
            isIdempotent: Self.isIdempotent(method),
            closesConnection: closesConnection,
            retried: false,
            phase: .queued
        )
        if !keyStates[slot].idle.isEmpty {
            let connection = keyStates[slot].idle.removeLast()
            state.phase = .leased(connection, .assigned)
            requests[request] = state
            connections[connection]!.phase = .leased(request)
            return Action(connection: .cancelIdleTimeout(connection), request: .execute(request, on: connection))
        }
        requests[request] = state
        keyStates[slot].queue.append(request)
        return Action(connection: createIfNeeded(for: slot, now: now))
    }

    /// The connection is established and ready.
    ///
    /// - Returns: `execute` the request it was made for or the oldest
    ///   waiting one, or `scheduleIdleTimeout` when nobody waits.
    public mutating func connectionEstablished(_ connection: ConnectionID, now: HTTPDeadline) -> Action {
        guard case .connecting(let reserved)? = connections[connection]?.phase else {
            violation("connectionEstablished: only a connecting connection can be established, but \(connection) is \(describe(connection))")
        }
        let slot = connections[connection]!.keySlot
        // A key that may speak HTTP/2 opened one connection at a time;
        // this one speaks HTTP/1.1, so the rest of the queue gets more.
        let learnedHTTP1 = keyStates[slot].usesMultiplexRules
        if learnedHTTP1 { keyStates[slot].negotiatedHTTP1 = true }
        if let reserved {
            return lease(connection, to: reserved)
        }
        keyStates[slot].unreservedConnecting -= 1
        if !keyStates[slot].queue.isEmpty {
            let next = keyStates[slot].queue.removeFirst()
            var action = lease(connection, to: next)
            if learnedHTTP1 { action.connection = createIfNeeded(for: slot, now: now) }
            return action
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
        let slot = connections[connection]!.keySlot
        if reserved == nil { keyStates[slot].unreservedConnecting -= 1 }
        // Pick the request that pays for the failure before deciding
        // whether the rest of the queue needs another connection.
        let victim: RequestID?
        if let reserved {
            victim = reserved
        } else if !keyStates[slot].queue.isEmpty {
            victim = keyStates[slot].queue.removeFirst()
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
        if case .multiplexed = connections[connection]!.phase {
            // A stream ended; the connection goes on whatever the
            // exchange said about HTTP/1.1 keep-alive.
            return Action(connection: streamEnded(on: connection, now: now))
        }
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
            keyStates[state.keySlot].queue.removeAll { $0 == request }
            return Action(request: .fail(request, error))
        case .waitingForRetryConnection(let connection):
            requests[request] = nil
            unreserve(connection)
            return Action(request: .fail(request, error))
        case .leased(let connection, _) where connections[connection]!.isMultiplexed:
            // One stream failed (a timeout, a body the decoder refused):
            // the owner resets it; the connection goes on.
            requests[request] = nil
            return Action(connection: streamEnded(on: connection, now: now), request: .fail(request, error))
        case .leased(let connection, let exchange):
            let reused = connections[connection]!.completedExchanges > 0
            let retry = error.code == .networkConnectionLost && state.isIdempotent && !state.retried
                && reused && exchange != .receiving
            if retry {
                let fresh = newConnectionID()
                let deadline = now.advanced(byNanoseconds: connectTimeoutNanoseconds)
                forget(connection)
                connections[fresh] = ConnectionState(keySlot: state.keySlot, phase: .connecting(reservedFor: request),
                                                     completedExchanges: 0)
                keyStates[state.keySlot].connectionCount += 1
                requests[request]!.retried = true
                requests[request]!.phase = .waitingForRetryConnection(fresh)
                return Action(
                    connection: .closeAndCreate(close: connection, create: fresh, keyStates[state.keySlot].key,
                                                connectDeadline: deadline),
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
            keyStates[state.keySlot].queue.removeAll { $0 == request }
            return .none
        case .waitingForRetryConnection(let connection):
            unreserve(connection)
            return .none
        case .leased(let connection, _) where connections[connection]!.isMultiplexed:
            // The owner resets the stream (RST_STREAM): the connection goes on.
            return Action(connection: streamEnded(on: connection, now: now))
        case .leased(let connection, .assigned):
            return release(connection, now: now)
        case .leased(let connection, .writing), .leased(let connection, .receiving):
            return Action(connection: remove(connection, now: now))
        }
    }

    /// The peer closed an idle connection (end of stream or a reset while
    /// nothing was in flight).
    public mutating func connectionClosed(_ connection: ConnectionID, now: HTTPDeadline) -> Action {
        if case .multiplexed(let multiplex)? = connections[connection]?.phase {
            guard multiplex.streams == 0 else {
                violation("connectionClosed: an HTTP/2 connection closes once its streams failed (streamFailed), but \(connection) is \(describe(connection))")
            }
            return Action(connection: remove(connection, now: now))
        }
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
        if case .multiplexed(let multiplex)? = connections[connection]?.phase {
            guard multiplex.streams == 0, let deadline = multiplex.idleDeadline else { return .none }
            if now < deadline { return Action(connection: .scheduleIdleTimeout(connection, deadline)) }
            return Action(connection: remove(connection, now: now))
        }
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
        keyStates.removeAll()
        keySlots.removeAll()
        return ShutdownAction(
            failedRequests: failed,
            closedConnections: closed,
            error: UVURLError(.cancelled, detail: "the session was shut down")
        )
    }
}
