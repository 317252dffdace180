/// A received message lent for the length of one call: its kind and a
/// view of its bytes where the connection holds them (the read buffer,
/// or for a fragmented or compressed message the reader's message
/// buffer), so that receiving it allocates nothing.
///
/// The bytes are valid only inside the call that lends the message (a
/// handler of `UVWebSocketTask.receiveBorrowed(_:)`, the C API's
/// `UVC_WS_EVENT_MESSAGE`): copy what must outlive it. Text is valid
/// UTF-8 (checked as it arrived).
///
/// Threading: used on the loop thread, during the call; not `Sendable`.
///
/// ```swift
/// task.receiveBorrowed { result in
///     guard case .success(let message) = result else { return }
///     total += message.bytes.count                  // no allocation
///     if message.kind == .text { print(message.text) } // a String made on purpose
/// }
/// ```
public struct WebSocketBorrowedMessage {
    /// A message's kind: its first frame's opcode.
    ///
    /// ```swift
    /// if message.kind == .binary { consume(message.bytes) }
    /// ```
    public enum Kind: Sendable, Hashable {
        /// A text message (valid UTF-8).
        case text
        /// A binary message.
        case binary
    }

    /// Text or binary.
    public let kind: Kind
    /// The payload, valid during the call that lends the message only.
    public let bytes: UnsafeRawBufferPointer

    /// A message of `kind` whose payload is `bytes`.
    package init(kind: Kind, bytes: UnsafeRawBufferPointer) {
        self.kind = kind
        self.bytes = bytes
    }

    /// The payload decoded as a `String` (a copy; it allocates beyond 15
    /// bytes).
    ///
    /// ```swift
    /// print(message.text) // hello
    /// ```
    public var text: String {
        String(decoding: bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
    }

    /// The payload as a `RawSpan` for `body` (the same loan: valid during
    /// the call only).
    ///
    /// ```swift
    /// let first = message.withSpan { $0.byteCount > 0 ? $0.unsafeLoad(as: UInt8.self) : 0 }
    /// ```
    public func withSpan<R>(_ body: (RawSpan) -> R) -> R {
        body(RawSpan(_unsafeBytes: bytes))
    }
}
