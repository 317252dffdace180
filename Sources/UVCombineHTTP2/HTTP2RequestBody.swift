/// A request's body for ``HTTP2ClientConnection/openStream(_:body:)``.
///
/// Threading: a value type; `Sendable`.
///
/// ```swift
/// let id = try connection.openStream(post, body: .streamed)
/// connection.appendUpload(firstChunk, to: id)   // more after each .uploadWanted(id)
/// connection.finishUpload(id)
/// ```
public enum HTTP2RequestBody: Sendable, Hashable {
    /// No body: HEADERS carries END_STREAM.
    case none
    /// The whole body, known up front. It is framed as the peer's window
    /// allows; the array is shared, not copied, until then.
    case bytes([UInt8])
    /// A body the owner hands over chunk by chunk
    /// (``HTTP2ClientConnection/appendUpload(_:to:)``, then
    /// ``HTTP2ClientConnection/finishUpload(_:)``): the first at once, each
    /// next one after
    /// ``HTTP2Event/uploadWanted(_:)``. While no chunk is waiting, the
    /// stream's DATA is deferred (nghttp2's `NGHTTP2_ERR_DEFERRED`).
    case streamed
}
