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
        /// HTTP/2 streams the server refused without processing them
        /// (GOAWAY, REFUSED_STREAM), each retried.
        var refusals: UInt8 = 0
    }

    /// A connection's state; see the type's documentation.
    internal enum ConnectionPhase: Equatable {
        case connecting(reservedFor: RequestID?)
        case idle(HTTPDeadline)
        case leased(RequestID)
        /// HTTP/2: carrying several requests at once, one per stream.
        case multiplexed(Multiplex)
    }

    /// A multiplexed (HTTP/2) connection's streams and limits.
    internal struct Multiplex: Equatable {
        /// Requests leased on it (open streams).
        var streams = 0
        /// Streams it may carry: the server's `SETTINGS_MAX_CONCURRENT_STREAMS`
        /// (within ``Configuration/maximumStreamsPerConnection``); 0 until
        /// the server's SETTINGS came, so nothing is sent that the server
        /// would refuse.
        var capacity = 0
        /// GOAWAY came (or the connection failed): no new stream.
        var isGoingAway = false
        /// When it closes if it stays without streams.
        var idleDeadline: HTTPDeadline?

        /// Whether another stream may be leased on it.
        var hasRoom: Bool { !isGoingAway && streams < capacity }
    }

    internal struct ConnectionState {
        /// Its key's index in `keyStates`.
        var keySlot: Int
        var phase: ConnectionPhase
        /// Exchanges completed with keep-alive: a connection with any is a
        /// reused one.
        var completedExchanges: Int

        /// Whether it is an HTTP/2 connection.
        var isMultiplexed: Bool {
            if case .multiplexed = phase { return true }
            return false
        }
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
        /// Multiplexed (HTTP/2) connections that take new streams (not
        /// going away), oldest first.
        var http2Connections: [ConnectionID] = []
        /// A connection of this key, which may speak HTTP/2, came up as
        /// HTTP/1.1: the key follows HTTP/1.1's rules from then on.
        var negotiatedHTTP1 = false

        /// Whether HTTP/2's rules apply: the key may speak HTTP/2 and no
        /// connection said it does not.
        var usesMultiplexRules: Bool { key.httpVersion.mayUseHTTP2 && !negotiatedHTTP1 }
    }
}
