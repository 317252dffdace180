extension UVWebSocketTask {
    /// Sends `message`; returns once the kernel took its frames.
    ///
    /// Any task or thread; the work runs on the loop thread, which must be
    /// running (not the caller's thread blocked on it).
    ///
    /// ```swift
    /// try await task.send(.string("hello"))
    /// ```
    ///
    /// - Throws: ``WebSocketError``.
    public func send(_ message: Message) async throws(WebSocketError) {
        let result: Result<Void, WebSocketError> = await withCheckedContinuation { continuation in
            send(message) { error in continuation.resume(returning: error.map { .failure($0) } ?? .success(())) }
        }
        try result.get()
    }

    /// The next message.
    ///
    /// ```swift
    /// let message = try await task.receive()
    /// ```
    ///
    /// - Throws: ``WebSocketError``; after the close handshake,
    ///   ``WebSocketError/Reason/closed``.
    public func receive() async throws(WebSocketError) -> Message {
        let result: Result<Message, WebSocketError> = await withCheckedContinuation { continuation in
            receive { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Sends a ping and returns when its pong arrived.
    ///
    /// ```swift
    /// try await task.sendPing()
    /// ```
    ///
    /// - Throws: ``WebSocketError`` when the connection closes first.
    public func sendPing() async throws(WebSocketError) {
        let result: Result<Void, WebSocketError> = await withCheckedContinuation { continuation in
            sendPing { error in continuation.resume(returning: error.map { .failure($0) } ?? .success(())) }
        }
        try result.get()
    }
}
