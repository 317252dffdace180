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
}
