/// A value made from bytes a TCP connection read: what the byte publishers'
/// subscriptions hand their subscribers.
///
/// Why a protocol: UVCombineLoop imports no Foundation module, yet the
/// public publishers (`UVTCPConnection.DataPublisher`, `UVTCP.FetchPublisher`,
/// in UVCombineLoopFoundation) publish `Data`. The subscriptions, which
/// need libuv, stay here and are generic over their value; `Data` conforms
/// in UVCombineLoopFoundation.
///
/// ```swift
/// extension Data: TCPByteChunk {
///     package init(tcpBytes bytes: UnsafeRawBufferPointer) { self.init(bytes: bytes.baseAddress!, count: bytes.count) }
/// }
/// ```
@usableFromInline
package protocol TCPByteChunk {
    /// A copy of `bytes` (never empty: zero-byte reads are not delivered).
    init(tcpBytes bytes: UnsafeRawBufferPointer)
}
