import UVCombineLoop

extension TestHTTPServer {
    /// A way for the server to misbehave, byte for byte, so that clients can
    /// be tested against broken servers.
    ///
    /// Give one to a response (`.fault(.closeMidBody)`, or
    /// ``Response/fault``) to misbehave for that request, or to
    /// ``TestHTTPServer/init(loop:fault:body:)`` to misbehave for every
    /// request. Faults that send a body send the response's body (1 KiB of
    /// `a`s for `.fault(_:)` responses).
    ///
    /// ```swift
    /// let server = try TestHTTPServer(routes: [
    ///     "/ok": .text("fine"),
    ///     "/cut": .fault(.closeMidBody),
    ///     "/slow": .fault(.slowBody(chunks: 4, delay: .milliseconds(50))),
    /// ])
    /// ```
    public enum Fault: Sendable, Hashable, CustomStringConvertible {
        /// Not listening: connections are refused (`UV_ECONNREFUSED`). As a
        /// server-wide fault the server never listens (its port was bound
        /// once and released); as a response's fault the server stops
        /// listening and closes the connection without sending a byte.
        case refuse
        /// Sends the response head (with the body's `Content-Length`), then
        /// closes the connection.
        case closeAfterHead
        /// Sends the head and the first half of the body (at least one
        /// byte), then closes the connection.
        case closeMidBody
        /// Never responds; the connection stays open until the client
        /// closes it (or the server shuts down).
        case stall
        /// Declares a `Content-Length` 10 bytes longer than the body it
        /// sends, then closes the connection.
        case contentLengthMismatch
        /// Sends the body with `Transfer-Encoding: chunked`, `chunkSize`
        /// bytes per chunk, one write per chunk (many chunks by default);
        /// the connection stays usable.
        case chunked(chunkSize: Int = 1)
        /// Sends the head at once, then the body (with its `Content-Length`)
        /// in `chunks` parts, `delay` apart, on the server loop's timers.
        case slowBody(chunks: Int = 4, delay: UVLoop.SchedulerTimeType.Stride = .milliseconds(20))
        /// Sends a status line that is not HTTP (`HTTP/1.1 abc Malformed`),
        /// then closes the connection.
        case malformedStatusLine
        /// Sends a head with one `X-Oversized` field of `bytes` bytes, then
        /// the body, then closes the connection.
        case oversizedHeaders(bytes: Int = 128 * 1024)
        /// Answers `302 Found` with `Location: <path>?hop=<n>`, a new URL on
        /// this server each time, forever. The connection stays usable.
        case infiniteRedirect
        /// Sends a complete keep-alive response (no `Connection: close`),
        /// then closes the idle connection as soon as the response was
        /// written, as servers with short keep-alive timeouts do.
        case keepAliveClosedByServer

        /// The case's name, e.g. `closeMidBody` or `chunked(chunkSize: 1)`.
        public var description: String {
            switch self {
            case .refuse: return "refuse"
            case .closeAfterHead: return "closeAfterHead"
            case .closeMidBody: return "closeMidBody"
            case .stall: return "stall"
            case .contentLengthMismatch: return "contentLengthMismatch"
            case .chunked(let size): return "chunked(chunkSize: \(size))"
            case .slowBody(let chunks, let delay): return "slowBody(chunks: \(chunks), delay: \(delay.nanoseconds) ns)"
            case .malformedStatusLine: return "malformedStatusLine"
            case .oversizedHeaders(let bytes): return "oversizedHeaders(bytes: \(bytes))"
            case .infiniteRedirect: return "infiniteRedirect"
            case .keepAliveClosedByServer: return "keepAliveClosedByServer"
            }
        }
    }
}
