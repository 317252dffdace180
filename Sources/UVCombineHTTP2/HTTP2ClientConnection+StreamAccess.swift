extension HTTP2ClientConnection {
    /// Mutates the state of stream `id` in place, when it is open.
    ///
    /// Through the dictionary's index and its values' storage rather than
    /// `streams[id]!.field = …`: the key subscript's `_modify` yields a
    /// temporary `HTTP2StreamState?`, and its coroutine frame is larger than
    /// the caller's fixed buffer for this value type, so every such
    /// assignment called `malloc` (perf on HTTP2Profile, issue 33: about
    /// three per request on the response path).
    ///
    /// ```swift
    /// updateStream(streamID) { $0.phase = .ended }
    /// ```
    @inline(__always)
    internal func updateStream(_ id: Int32, _ body: (inout HTTP2StreamState) -> Void) {
        guard let index = streams.index(forKey: id) else { return }
        body(&streams.values[index])
    }
}
