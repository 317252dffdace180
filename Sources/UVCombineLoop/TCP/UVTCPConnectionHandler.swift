/// Receives what happens on a ``UVTCPConnection``: the zero-copy reading
/// API, for protocol code (the HTTP session) that parses bytes in place.
///
/// Every method runs on the connection's loop thread, never re-entrantly
/// for the same connection except as noted. A handler may call any of the
/// connection's methods from inside these callbacks (request more reads,
/// stop reading, write, close).
///
/// ```swift
/// final class Echo: UVTCPConnectionHandler {
///     func connection(_ connection: UVTCPConnection, didRead bytes: UnsafeRawBufferPointer) {
///         connection.write(Array(bytes))
///     }
///     func connection(_ connection: UVTCPConnection, didEndWith error: UVTCPError?) {
///         connection.close()
///     }
/// }
/// connection.handler = Echo()
/// connection.startReading()
/// ```
public protocol UVTCPConnectionHandler: AnyObject {
    /// Bytes arrived; one read consumed one unit of the connection's read
    /// demand.
    ///
    /// `bytes` points into the connection's one read buffer and is valid
    /// only during this call: parse it in place, or copy what you keep.
    /// Reading allocates nothing per read.
    func connection(_ connection: UVTCPConnection, didRead bytes: UnsafeRawBufferPointer)

    /// The incoming stream ended: `nil` when the peer closed its side
    /// (end of file), or the error that broke the connection (kind
    /// ``UVTCPError/Kind/connectionLost``: `UV_ECONNRESET`, a write's
    /// `UV_EPIPE`, ...). Called at most once, and never after the
    /// connection was closed by ``UVTCPConnection/close()``.
    ///
    /// After an error the connection closes itself right after this call;
    /// after end of file it closes itself once the writes still queued
    /// completed (there are no half-open connections).
    func connection(_ connection: UVTCPConnection, didEndWith error: UVTCPError?)

    /// A ``UVTCPConnection/write(_:completion:)`` returned `false` (the
    /// write queue reached the high-water mark) and the queue has since
    /// drained below it: write more. Optional; does nothing by default.
    func connectionDidBecomeWritable(_ connection: UVTCPConnection)
}

extension UVTCPConnectionHandler {
    /// Does nothing.
    ///
    /// ```swift
    /// final class Echo: UVTCPConnectionHandler {
    ///     // no connectionDidBecomeWritable(_:): this default applies
    ///     func connection(_ connection: UVTCPConnection, didRead bytes: UnsafeRawBufferPointer) {
    ///         _ = connection.write(Array(bytes))
    ///     }
    ///     func connection(_ connection: UVTCPConnection, didEndWith error: UVTCPError?) {}
    /// }
    /// ```
    public func connectionDidBecomeWritable(_ connection: UVTCPConnection) {}
}
