import UVCombineHTTPCore

/// Sees a session's HTTP/1.1 bytes where they cross the wire (after TLS
/// decryption): each request as written and the response bytes as read,
/// and each connection as it is established. For `uvcombine fetch`'s
/// `-v`, `-i` and `-I`, which print the heads exactly as sent and
/// received, as curl does; package only.
///
/// Set ``SessionEngine/wireObserver`` on the loop thread before the first
/// task starts. The calls come on the loop thread, before the engine acts
/// on the bytes; the buffers are valid only during the call.
///
/// ```swift
/// final class Tracer: SessionWireObserver {
///     func sessionWillWrite(_ bytes: UnsafeRawBufferPointer) { print("sent", bytes.count) }
///     func sessionDidRead(_ bytes: UnsafeRawBufferPointer) { print("read", bytes.count) }
///     func sessionDidConnect() {}
/// }
/// session.engine.wireObserver = Tracer()
/// ```
package protocol SessionWireObserver: AnyObject {
    /// A request (its head, and its body when the body is written with
    /// it) is about to be written.
    func sessionWillWrite(_ bytes: UnsafeRawBufferPointer)
    /// Response bytes were read.
    func sessionDidRead(_ bytes: UnsafeRawBufferPointer)
    /// A connection was established (TCP, and TLS for `https`).
    func sessionDidConnect()
    /// The connection just established speaks HTTP/2 (after
    /// ``sessionDidConnect()``); its bytes are not shown (they are frames).
    /// Does nothing by default (SessionEngine+HTTP2.swift).
    func sessionDidConnectHTTP2()
}
