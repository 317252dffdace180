// What the pool remembers per request, per connection and per key. The
// states are described in the type's documentation
// (ConnectionPoolStateMachine.swift).
//
// Requests and connections name their key by its slot in `keyStates`
// rather than by the ConnectionKey itself: their states then hold no
// reference, so reading or copying one out of its dictionary retains and
// releases nothing, and the per-key state is reached by an array index
// instead of hashing and comparing the key again (issue 17).

extension ConnectionPoolStateMachine {
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
        /// Its key's index in `keyStates`.
        var keySlot: Int
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
        /// Its key's index in `keyStates`.
        var keySlot: Int
        var phase: ConnectionPhase
        /// Exchanges completed with keep-alive: a connection with any is a
        /// reused one.
        var completedExchanges: Int
    }

    /// Per-key bookkeeping.
    internal struct KeyState {
        /// The key.
        let key: ConnectionKey
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
}
