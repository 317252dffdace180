/// A WebSocket message in bytes: what ``WebSocketClientTask`` sends and
/// delivers. `UVWebSocketTask.Message` (`.data(Data)`, `.string`) converts
/// to and from it at its edge; the C API uses it as is.
///
/// Threading: a value type; `Sendable`.
///
/// ```swift
/// task.send(.binary([1, 2, 3]), completion: nil)
/// ```
package enum WebSocketClientMessage: Sendable, Hashable {
    /// A text message.
    case text(String)
    /// A binary message: the reader's array, handed over without a copy.
    case binary([UInt8])
}

/// Where a ``WebSocketClientTask`` is, as `URLSessionTask.State`.
///
/// Threading: a value type; `Sendable`.
///
/// ```swift
/// if task.status.snapshot.state == .completed { print(task.status.closeCode) }
/// ```
package enum WebSocketClientState: Sendable, Hashable {
    /// Not resumed yet.
    case suspended
    /// Connecting or connected.
    case running
    /// Closed, cancelled or failed.
    case completed
}
