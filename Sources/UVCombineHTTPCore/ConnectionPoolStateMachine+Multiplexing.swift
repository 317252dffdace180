// HTTP/2 in the pool (issue 33): multiplexed connections, leased per
// stream rather than per request. The events the owner reports for an
// HTTP/2 connection, and the steps they share.

extension ConnectionPoolStateMachine {
    // MARK: HTTP/2 events

    /// The connection came up speaking HTTP/2 (ALPN `h2`, or prior
    /// knowledge): it carries several requests at once, as many as the
    /// server's `SETTINGS_MAX_CONCURRENT_STREAMS`. Nothing is leased on
    /// it before ``multiplexedSettingsReceived(_:maximumStreams:now:)``
    /// (the server's SETTINGS is its first frame), so no request is sent
    /// beyond a limit the server has not announced yet.
    ///
    /// - Returns: `scheduleIdleTimeout` when nobody waits; `.none`
    ///   otherwise (the waiting requests get streams once the SETTINGS
    ///   came: ``leaseStream(on:)``).
    ///
    /// ```swift
    /// _ = pool.multiplexedConnectionEstablished(connection, now: now)
    /// _ = pool.multiplexedSettingsReceived(connection, maximumStreams: 100, now: now)
    /// while let request = pool.leaseStream(on: connection) { openStream(request) }
    /// ```
    public mutating func multiplexedConnectionEstablished(_ connection: ConnectionID, now: HTTPDeadline) -> ConnectionAction {
        guard case .connecting(let reserved)? = connections[connection]?.phase else {
            violation("multiplexedConnectionEstablished: only a connecting connection can be established, but \(connection) is \(describe(connection))")
        }
        let slot = connections[connection]!.keySlot
        if let reserved {
            // Made for a retry: the request waits for a stream like the others, first.
            requests[reserved]!.phase = .queued
            keyStates[slot].queue.insert(reserved, at: 0)
        } else {
            keyStates[slot].unreservedConnecting -= 1
        }
        keyStates[slot].http2Connections.append(connection)
        var multiplex = Multiplex()
        guard keyStates[slot].queue.isEmpty else {
            connections[connection]!.phase = .multiplexed(multiplex)
            return .none
        }
        let deadline = now.advanced(byNanoseconds: idleTimeoutNanoseconds)
        multiplex.idleDeadline = deadline
        connections[connection]!.phase = .multiplexed(multiplex)
        return .scheduleIdleTimeout(connection, deadline)
    }

    /// The server's SETTINGS arrived (first, or changed):
    /// `maximumStreams` is its `SETTINGS_MAX_CONCURRENT_STREAMS`, nil for
    /// no limit (``Configuration/maximumStreamsPerConnection`` then).
    ///
    /// - Returns: `.none`, or `scheduleIdleTimeout` when the connection
    ///   has no stream and nobody waits. Then lease the waiting requests:
    ///   ``leaseStream(on:)`` until nil.
    public mutating func multiplexedSettingsReceived(_ connection: ConnectionID, maximumStreams: Int?,
                                                     now: HTTPDeadline) -> ConnectionAction {
        guard case .multiplexed(var multiplex)? = connections[connection]?.phase else {
            violation("multiplexedSettingsReceived: SETTINGS come on an HTTP/2 connection, but \(connection) is \(describe(connection))")
        }
        multiplex.capacity = min(max(maximumStreams ?? .max, 0), configuration.maximumStreamsPerConnection)
        connections[connection]!.phase = .multiplexed(multiplex)
        return .none
    }

    /// The next waiting request of the connection's key, leased on a new
    /// stream of `connection` when it has room; nil otherwise. Call it
    /// until nil after every event that may free a stream or add room
    /// (SETTINGS, a stream's end, failure or cancel), and execute each.
    ///
    /// ```swift
    /// while let request = pool.leaseStream(on: connection) { execute(request, on: connection) }
    /// ```
    public mutating func leaseStream(on connection: ConnectionID) -> RequestID? {
        guard let index = connections.index(forKey: connection),
              case .multiplexed(let multiplex) = connections.values[index].phase, multiplex.hasRoom else { return nil }
        let slot = connections.values[index].keySlot
        guard !keyStates[slot].queue.isEmpty else { return nil }
        let request = keyStates[slot].queue.removeFirst()
        requests[request]!.phase = .leased(connection, .assigned)
        _ = addStream(on: connection)
        return request
    }

    /// The server sent GOAWAY, or the connection failed: no new stream
    /// goes on it. Streams the server will not process follow as
    /// ``streamFailed(_:error:isRetryable:now:)``.
    ///
    /// - Returns: `close` when it carries no stream; otherwise `create`
    ///   another connection when requests wait; `.none`. Idempotent.
    public mutating func multiplexedConnectionGoingAway(_ connection: ConnectionID, now: HTTPDeadline) -> ConnectionAction {
        guard case .multiplexed(var multiplex)? = connections[connection]?.phase, !multiplex.isGoingAway else { return .none }
        multiplex.isGoingAway = true
        connections[connection]!.phase = .multiplexed(multiplex)
        let slot = connections[connection]!.keySlot
        keyStates[slot].http2Connections.removeAll { $0 == connection }
        if multiplex.streams == 0 { return remove(connection, now: now) }
        return createIfNeeded(for: slot, now: now)
    }

    /// A request's stream failed: reset by the server, above a GOAWAY's
    /// last stream id, or lost with its connection. `isRetryable` says the
    /// server never processed it (REFUSED_STREAM, GOAWAY): such a request
    /// goes back to the head of its key's queue (RFC 9113, 8.7), up to
    /// ``Configuration/maximumStreamRefusals`` times; any other fails with
    /// `error`.
    ///
    /// - Returns: `retry(r, on: .queue)` or `fail(r, error)`; for the
    ///   connection `close` (going away and now without streams, possibly
    ///   `closeAndCreate`), `create` (a retried request needs a
    ///   connection), `scheduleIdleTimeout`, or `.none`. Then
    ///   ``leaseStream(on:)`` until nil.
    public mutating func streamFailed(_ request: RequestID, error: UVURLError, isRetryable: Bool,
                                      now: HTTPDeadline) -> Action {
        guard let state = requests[request], case .leased(let connection, _) = state.phase,
              connections[connection]?.isMultiplexed == true else {
            violation("streamFailed: only a request on an HTTP/2 connection has a stream, but \(request) is \(describe(request))")
        }
        guard isRetryable && Int(state.refusals) < configuration.maximumStreamRefusals else {
            requests[request] = nil
            return Action(connection: streamEnded(on: connection, now: now), request: .fail(request, error))
        }
        requests[request]!.refusals += 1
        requests[request]!.phase = .queued
        keyStates[state.keySlot].queue.insert(request, at: 0)
        var action = streamEnded(on: connection, now: now)
        if action == .none { action = createIfNeeded(for: state.keySlot, now: now) }
        return Action(connection: action, request: .retry(request, on: .queue))
    }

    /// After ``leaseStream(on:)`` returned nil: when requests still wait
    /// and every usable HTTP/2 connection of the key is full, another one
    /// (within ``Configuration/maximumMultiplexedConnectionsPerHost``).
    ///
    /// - Returns: `create`, or `.none`.
    public mutating func connectionNeeded(besides connection: ConnectionID, now: HTTPDeadline) -> ConnectionAction {
        guard let state = connections[connection] else { return .none }
        return createIfNeeded(for: state.keySlot, now: now)
    }

    /// Open streams on an HTTP/2 connection (0 for any other).
    public func streamCount(on connection: ConnectionID) -> Int {
        guard case .multiplexed(let multiplex)? = connections[connection]?.phase else { return 0 }
        return multiplex.streams
    }

    // MARK: Steps

    /// A usable HTTP/2 connection of the key with a free stream.
    internal func multiplexedConnectionWithRoom(_ slot: Int) -> ConnectionID? {
        for connection in keyStates[slot].http2Connections {
            if case .multiplexed(let multiplex)? = connections[connection]?.phase, multiplex.hasRoom { return connection }
        }
        return nil
    }

    /// Whether every usable HTTP/2 connection of the key knows its limit
    /// and has reached it (true when there is none).
    internal func allMultiplexedFull(_ slot: Int) -> Bool {
        for connection in keyStates[slot].http2Connections {
            guard case .multiplexed(let multiplex)? = connections[connection]?.phase else { continue }
            if multiplex.capacity == 0 || multiplex.streams < multiplex.capacity { return false }
        }
        return true
    }

    /// One more stream on the connection; true when it had none (its idle
    /// timer is to be stopped).
    internal mutating func addStream(on connection: ConnectionID) -> Bool {
        guard case .multiplexed(var multiplex)? = connections[connection]?.phase else { return false }
        let wasIdle = multiplex.streams == 0
        multiplex.streams += 1
        multiplex.idleDeadline = nil
        connections[connection]!.phase = .multiplexed(multiplex)
        return wasIdle
    }

    /// One stream fewer: a connection going away closes with its last
    /// stream; one without streams and without waiting requests it could
    /// serve goes idle.
    internal mutating func streamEnded(on connection: ConnectionID, now: HTTPDeadline) -> ConnectionAction {
        guard case .multiplexed(var multiplex)? = connections[connection]?.phase else { return .none }
        multiplex.streams -= 1
        connections[connection]!.phase = .multiplexed(multiplex)
        guard multiplex.streams == 0 else { return .none }
        if multiplex.isGoingAway { return remove(connection, now: now) }
        let slot = connections[connection]!.keySlot
        if multiplex.capacity > 0 && !keyStates[slot].queue.isEmpty { return .none }
        let deadline = now.advanced(byNanoseconds: idleTimeoutNanoseconds)
        multiplex.idleDeadline = deadline
        connections[connection]!.phase = .multiplexed(multiplex)
        return .scheduleIdleTimeout(connection, deadline)
    }
}
