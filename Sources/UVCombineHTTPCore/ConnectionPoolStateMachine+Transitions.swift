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
    /// The slot of `key` in `keyStates`, made at the key's first request.
    internal mutating func keySlot(for key: ConnectionKey) -> Int {
        // The last key asked for first: one comparison of stored hashes
        // and fields instead of hashing the key for the dictionary (a
        // session mostly talks to one host at a time; issue 32).
        // Compared in place: `keyStates[slot].key` copied the key out
        // (its strings retained and released, about 150 instructions).
        let last = lastKeySlot
        if last < keyStates.count, keyStates.withUnsafeBufferPointer({ $0[last].key == key }) { return last }
        if let slot = keySlots[key] {
            lastKeySlot = slot
            return slot
        }
        let slot = keyStates.count
        keyStates.append(KeyState(key: key))
        keySlots[key] = slot
        lastKeySlot = slot
        return slot
    }

    internal mutating func createIfNeeded(for slot: Int, now: HTTPDeadline) -> ConnectionAction {
        guard keyStates[slot].queue.count > keyStates[slot].unreservedConnecting else { return .none }
        if keyStates[slot].usesMultiplexRules {
            // HTTP/2 may come: one connection at a time while it is
            // negotiated, and another only when every HTTP/2 connection
            // is full (its SETTINGS known), within the HTTP/2 limit.
            guard keyStates[slot].unreservedConnecting == 0,
                  keyStates[slot].http2Connections.count < configuration.maximumMultiplexedConnectionsPerHost,
                  allMultiplexedFull(slot) else { return .none }
        } else {
            guard keyStates[slot].connectionCount < configuration.maximumConnectionsPerHost else { return .none }
        }
        let connection = newConnectionID()
        connections[connection] = ConnectionState(keySlot: slot, phase: .connecting(reservedFor: nil), completedExchanges: 0)
        keyStates[slot].connectionCount += 1
        keyStates[slot].unreservedConnecting += 1
        return .create(connection, keyStates[slot].key,
                       connectDeadline: now.advanced(byNanoseconds: connectTimeoutNanoseconds))
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
        let slot = connections.values[index].keySlot
        if !keyStates[slot].queue.isEmpty {
            let next = keyStates[slot].queue.removeFirst()
            return lease(connection, to: next)
        }
        let deadline = now.advanced(byNanoseconds: idleTimeoutNanoseconds)
        connections.values[index].phase = .idle(deadline)
        keyStates[slot].idle.append(connection)
        return Action(connection: .scheduleIdleTimeout(connection, deadline))
    }

    /// An established connection with nothing to serve goes idle.
    internal mutating func makeIdle(_ connection: ConnectionID, now: HTTPDeadline) -> ConnectionAction {
        let deadline = now.advanced(byNanoseconds: idleTimeoutNanoseconds)
        let index = connections.index(forKey: connection)!
        connections.values[index].phase = .idle(deadline)
        keyStates[connections.values[index].keySlot].idle.append(connection)
        return .scheduleIdleTimeout(connection, deadline)
    }

    /// Forgets a connection and says to close it, creating a replacement
    /// when requests of its key still wait.
    internal mutating func remove(_ connection: ConnectionID, now: HTTPDeadline) -> ConnectionAction {
        let slot = connections[connection]!.keySlot
        forget(connection)
        if case .create(let fresh, let key, let deadline) = createIfNeeded(for: slot, now: now) {
            return .closeAndCreate(close: connection, create: fresh, key, connectDeadline: deadline)
        }
        return .close(connection)
    }

    /// Drops a connection from the pool's books (no action).
    internal mutating func forget(_ connection: ConnectionID) {
        let state = connections.removeValue(forKey: connection)!
        keyStates[state.keySlot].connectionCount -= 1
        switch state.phase {
        case .idle:
            keyStates[state.keySlot].idle.removeAll { $0 == connection }
        case .multiplexed(let multiplex) where !multiplex.isGoingAway:
            keyStates[state.keySlot].http2Connections.removeAll { $0 == connection }
        default:
            break
        }
    }

    /// A connection made for a retried request that no longer needs it
    /// serves the queue like any other.
    internal mutating func unreserve(_ connection: ConnectionID) {
        connections[connection]!.phase = .connecting(reservedFor: nil)
        keyStates[connections[connection]!.keySlot].unreservedConnecting += 1
    }

    // MARK: Messages

    /// A connection's state, for a violation's message.
    internal func describe(_ connection: ConnectionID) -> String {
        guard let state = connections[connection] else { return "unknown to the pool" }
        switch state.phase {
        case .connecting(let reserved): return reserved.map { "connecting for \($0)" } ?? "connecting"
        case .idle: return "idle"
        case .leased(let request): return "leased to \(request)"
        case .multiplexed(let multiplex):
            return "multiplexed, \(multiplex.streams) of \(multiplex.capacity) streams\(multiplex.isGoingAway ? ", going away" : "")"
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
