// The steps the events (ConnectionPoolStateMachine.swift) are made of:
// creating, leasing, releasing and forgetting connections, and the
// messages of impossible transitions.

extension ConnectionPoolStateMachine {
    /// The next connection's ID (numbers are never reused).
    internal mutating func newConnectionID() -> ConnectionID {
        defer { nextConnectionNumber += 1 }
        return ConnectionID(nextConnectionNumber)
    }

    /// Creates a connection when the key's queue has more requests than
    /// connections on their way, within the limit.
    internal mutating func createIfNeeded(for key: ConnectionKey, now: HTTPDeadline) -> ConnectionAction {
        guard let state = keys[key],
            state.queue.count > state.unreservedConnecting,
            state.connectionCount < configuration.maximumConnectionsPerHost
        else { return .none }
        let connection = newConnectionID()
        connections[connection] = ConnectionState(key: key, phase: .connecting(reservedFor: nil), completedExchanges: 0)
        keys[key]!.connectionCount += 1
        keys[key]!.unreservedConnecting += 1
        return .create(connection, key, connectDeadline: now.advanced(byNanoseconds: connectTimeoutNanoseconds))
    }

    /// Leases an established connection to a request.
    internal mutating func lease(_ connection: ConnectionID, to request: RequestID) -> Action {
        connections[connection]!.phase = .leased(request)
        requests[request]!.phase = .leased(connection, .assigned)
        return Action(request: .execute(request, on: connection))
    }

    /// A connection free for reuse: to the oldest waiting request, or idle.
    internal mutating func release(_ connection: ConnectionID, now: HTTPDeadline) -> Action {
        let index = connections.index(forKey: connection)!
        let keyIndex = keys.index(forKey: connections.values[index].key)!
        if !keys.values[keyIndex].queue.isEmpty {
            let next = keys.values[keyIndex].queue.removeFirst()
            return lease(connection, to: next)
        }
        let deadline = now.advanced(byNanoseconds: idleTimeoutNanoseconds)
        connections.values[index].phase = .idle(deadline)
        keys.values[keyIndex].idle.append(connection)
        return Action(connection: .scheduleIdleTimeout(connection, deadline))
    }

    /// An established connection with nothing to serve goes idle.
    internal mutating func makeIdle(_ connection: ConnectionID, now: HTTPDeadline) -> ConnectionAction {
        let deadline = now.advanced(byNanoseconds: idleTimeoutNanoseconds)
        let index = connections.index(forKey: connection)!
        connections.values[index].phase = .idle(deadline)
        keys[connections.values[index].key]!.idle.append(connection)
        return .scheduleIdleTimeout(connection, deadline)
    }

    /// Forgets a connection and says to close it, creating a replacement
    /// when requests of its key still wait.
    internal mutating func remove(_ connection: ConnectionID, now: HTTPDeadline) -> ConnectionAction {
        let key = connections[connection]!.key
        forget(connection)
        if case .create(let fresh, let key, let deadline) = createIfNeeded(for: key, now: now) {
            return .closeAndCreate(close: connection, create: fresh, key, connectDeadline: deadline)
        }
        return .close(connection)
    }

    /// Drops a connection from the pool's books (no action).
    internal mutating func forget(_ connection: ConnectionID) {
        let state = connections.removeValue(forKey: connection)!
        keys[state.key]!.connectionCount -= 1
        if case .idle = state.phase {
            keys[state.key]!.idle.removeAll { $0 == connection }
        }
    }

    /// A connection made for a retried request that no longer needs it
    /// serves the queue like any other.
    internal mutating func unreserve(_ connection: ConnectionID) {
        connections[connection]!.phase = .connecting(reservedFor: nil)
        keys[connections[connection]!.key]!.unreservedConnecting += 1
    }

    // MARK: Messages

    /// A connection's state, for a violation's message.
    internal func describe(_ connection: ConnectionID) -> String {
        guard let state = connections[connection] else { return "unknown to the pool" }
        switch state.phase {
        case .connecting(let reserved): return reserved.map { "connecting for \($0)" } ?? "connecting"
        case .idle: return "idle"
        case .leased(let request): return "leased to \(request)"
        }
    }

    /// A request's state, for a violation's message.
    internal func describe(_ request: RequestID) -> String {
        guard let state = requests[request] else { return "unknown to the pool" }
        switch state.phase {
        case .queued: return "queued"
        case .waitingForRetryConnection(let connection): return "waiting for retry connection \(connection)"
        case .leased(let connection, let exchange): return "leased on \(connection), \(exchange)"
        }
    }

    /// Traps for an impossible transition, naming the rule.
    internal func violation(_ rule: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
        httpViolation("ConnectionPoolStateMachine.\(rule)", file: file, line: line)
    }
}
