import HTTPTypes

/// What the connection keeps about one open stream: the header block being
/// received, where the response is, and the upload.
internal struct HTTP2StreamState {
    /// Where the response is.
    internal enum Phase {
        /// No final head yet (1xx heads may have come).
        case awaitingHead
        /// The final head came; DATA and trailers may follow.
        case body
        /// END_STREAM came (``HTTP2Event/end(_:)`` was reported).
        case ended
    }

    internal var phase: Phase = .awaitingHead
    /// `:status` of the header block being received.
    internal var status: Int?
    /// The fields of the header block being received.
    internal var fields = HTTPFields()
    /// RFC 7541 size of the header block being received.
    internal var headerListSize = 0
    /// The request body, when there is one.
    internal var upload: HTTP2UploadBuffer?
    /// The owner cancelled it: report nothing more.
    internal var isCancelled = false
    /// The RST_STREAM code the peer sent, when it reset the stream.
    internal var peerResetCode: HTTP2ErrorCode?
    /// Bytes delivered and not yet consumed by the owner (what the stream's
    /// window still holds back).
    internal var unconsumed = 0

    internal init(upload: HTTP2UploadBuffer?) {
        self.upload = upload
    }

    /// Starts a new header block.
    internal mutating func beginHeaderBlock() {
        status = nil
        fields = HTTPFields()
        headerListSize = 0
    }
}
