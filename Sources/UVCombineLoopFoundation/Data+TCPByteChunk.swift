import FoundationEssentials
import UVCombineLoop

// The loop's byte publishers (`UVTCPConnection.DataPublisher`,
// `UVTCP.FetchPublisher`) publish `Data`; their subscriptions live in
// UVCombineLoop, which imports no Foundation module, and make their values
// through this conformance.
extension Data: TCPByteChunk {
    /// A copy of `bytes`: one allocation for more than 14 bytes (smaller
    /// ones are stored inline).
    @usableFromInline
    package init(tcpBytes bytes: UnsafeRawBufferPointer) {
        self.init(bytes: bytes.baseAddress!, count: bytes.count)
    }
}
