extension ConnectionPoolStateMachine {
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
        /// The hash a dictionary uses: see ``ConnectionPoolStateMachine/idHash(_:seed:)``.
        ///
        /// ```swift
        /// let hash = ConnectionPoolStateMachine.RequestID(1)._rawHashValue(seed: 0)
        /// ```
        public func _rawHashValue(seed: Int) -> Int { ConnectionPoolStateMachine.idHash(rawValue, seed: seed) }
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
        /// The hash a dictionary uses: see ``ConnectionPoolStateMachine/idHash(_:seed:)``.
        ///
        /// ```swift
        /// let hash = ConnectionPoolStateMachine.ConnectionID(1)._rawHashValue(seed: 0)
        /// ```
        public func _rawHashValue(seed: Int) -> Int { ConnectionPoolStateMachine.idHash(rawValue, seed: seed) }
    }

    /// The dictionary hash of a request or connection number: the seed
    /// mixed in, then SplitMix64's finaliser (two multiplies, three shifts),
    /// instead of `Int`'s SipHash (about 90 instructions; the engine and
    /// the pool hash these about 13 times per request, issue 17). Enough
    /// here: the numbers are counters the library hands out, never input
    /// from the network, so nobody can choose colliding ones; every bit of
    /// the input reaches the low bits the dictionary's buckets use.
    ///
    /// ```swift
    /// let h = ConnectionPoolStateMachine.idHash(7, seed: 0)
    /// ```
    @inlinable
    public static func idHash(_ value: Int, seed: Int) -> Int {
        var x = UInt64(UInt(bitPattern: value)) ^ UInt64(UInt(bitPattern: seed))
        x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
        x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(bitPattern: UInt(x ^ (x >> 31)))
    }
}
