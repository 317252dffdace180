internal import CUVCombineLazyLibraries
import HTTPTypes

extension HTTP2ClientConnection {
    /// Fields HTTP/2 forbids in a request (RFC 9113, section 8.2.2): they
    /// are HTTP/1.1 connection management and are left out. `host` becomes
    /// `:authority` when the request has none.
    internal static let connectionSpecificFields: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade",
    ]

    /// Opens a stream for `request`: queues HEADERS (the pseudo-headers
    /// from `method`, `scheme`, `authority`, `path`, then the fields
    /// lowercased, connection-specific ones left out) and the body's DATA.
    /// nghttp2 holds the HEADERS back while the server's
    /// SETTINGS_MAX_CONCURRENT_STREAMS are all in use.
    ///
    /// Throws ``HTTP2Error/Kind/connectionClosing`` after a GOAWAY or a
    /// failure, ``HTTP2Error/Kind/invalidRequest`` for a request without
    /// `:scheme` or `:path`, or when the stream ids ran out.
    ///
    /// ```swift
    /// let id = try connection.openStream(HTTPRequest(method: .get, scheme: "http", authority: "a", path: "/"))
    /// print(id) // Prints: "1"
    /// ```
    public func openStream(_ request: HTTPRequest, body: HTTP2RequestBody = .none) throws(HTTP2Error) -> HTTP2StreamID {
        guard canOpenStreams else {
            throw HTTP2Error(.connectionClosing, detail: failure.map { "the connection failed: \($0)" }
                             ?? (receivedGoAway != nil ? "GOAWAY received" : "GOAWAY sent"))
        }
        try collectHeaderBlock(request)
        var provider = nghttp2_data_provider()
        provider.read_callback = HTTP2ClientConnection.readUploadCallback
        let upload: HTTP2UploadBuffer?
        switch body {
        case .none:
            upload = nil
        case .bytes(let bytes):
            var buffer = HTTP2UploadBuffer(finished: true)
            buffer.append(bytes)
            upload = buffer
        case .streamed:
            upload = HTTP2UploadBuffer(finished: false)
        }
        let id = headerBytes.withUnsafeMutableBufferPointer { storage -> Int32 in
            headerVectors.removeAll(keepingCapacity: true)
            let base = storage.baseAddress!
            for span in headerSpans {
                headerVectors.append(nghttp2_nv(name: base + span.name.lowerBound, value: base + span.value.lowerBound,
                                                namelen: span.name.count, valuelen: span.value.count,
                                                flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
            }
            return headerVectors.withUnsafeBufferPointer { vectors in
                upload == nil
                    ? nghttp2.submit_request(session, nil, vectors.baseAddress, vectors.count, nil, nil)
                    : nghttp2.submit_request(session, nil, vectors.baseAddress, vectors.count, &provider, nil)
            }
        }
        guard id > 0 else {
            throw HTTP2Error(.invalidRequest, detail: nghttp2.message(for: id))
        }
        streams[id] = HTTP2StreamState(upload: upload)
        return HTTP2StreamID(id)
    }

    /// Fills `headerBytes` and `headerSpans` with the request's header
    /// block.
    private func collectHeaderBlock(_ request: HTTPRequest) throws(HTTP2Error) {
        headerBytes.removeAll(keepingCapacity: true)
        headerSpans.removeAll(keepingCapacity: true)
        guard let scheme = request.scheme else { throw HTTP2Error(.invalidRequest, detail: "the request has no :scheme") }
        guard let path = request.path, !path.isEmpty else { throw HTTP2Error(.invalidRequest, detail: "the request has no :path") }
        var authority = request.authority
        if authority == nil {
            authority = request.headerFields.first { $0.name.canonicalName == "host" }?.value
        }
        addField(":method", request.method.rawValue)
        addField(":scheme", scheme)
        if let authority { addField(":authority", authority) }
        addField(":path", path)
        for field in request.headerFields {
            let name = field.name.canonicalName
            if name == "host" || HTTP2ClientConnection.connectionSpecificFields.contains(name) { continue }
            if name == "te" && field.value.lowercased() != "trailers" { continue }
            // No CR, LF or NUL check here: swift-http-types' HTTPField
            // never holds them (it turns them into spaces).
            addField(name, field.value)
        }
    }

    private func addField(_ name: String, _ value: String) {
        let nameStart = headerBytes.count
        headerBytes.append(contentsOf: name.utf8)
        let valueStart = headerBytes.count
        headerBytes.append(contentsOf: value.utf8)
        headerSpans.append((nameStart..<valueStart, valueStart..<headerBytes.count))
    }

    /// Hands the next chunk of a ``HTTP2RequestBody/streamed`` upload over
    /// (shared, not copied); it is framed as the peer's window allows.
    /// Ignored for a stream that is gone.
    ///
    /// ```swift
    /// case .uploadWanted(let id): connection.appendUpload(nextChunk, to: id)
    /// ```
    public func appendUpload(_ chunk: [UInt8], to id: HTTP2StreamID) {
        guard streams[id.rawValue]?.upload != nil else { return }
        streams[id.rawValue]!.upload!.append(chunk)
        resumeUploadIfDeferred(id.rawValue)
    }

    /// Ends a ``HTTP2RequestBody/streamed`` upload (the last DATA carries
    /// END_STREAM). Ignored for a stream that is gone.
    ///
    /// ```swift
    /// case .uploadWanted(let id) where publisherFinished: connection.finishUpload(id)
    /// ```
    public func finishUpload(_ id: HTTP2StreamID) {
        guard streams[id.rawValue]?.upload != nil else { return }
        streams[id.rawValue]!.upload!.finish()
        resumeUploadIfDeferred(id.rawValue)
    }

    private func resumeUploadIfDeferred(_ id: Int32) {
        guard streams[id]?.upload?.isDeferred == true else { return }
        streams[id]!.upload!.isDeferred = false
        _ = nghttp2.session_resume_data(session, id)
    }

    /// Bytes the stream's consumer took: they return to the stream's
    /// window, and WINDOW_UPDATE goes out once half the window was
    /// consumed (nghttp2's rule). A stream whose consumer takes nothing
    /// gets no more than its window. Ignored for a stream that is gone.
    ///
    /// ```swift
    /// case .data(let id, let bytes):
    ///     task.append(bytes)
    ///     if task.hasDemand { connection.consume(bytes.count, on: id) }  // else later, on request(_:)
    /// ```
    public func consume(_ count: Int, on id: HTTP2StreamID) {
        guard count > 0, streams[id.rawValue] != nil else { return }
        updateStream(id.rawValue) { $0.unconsumed -= count }
        _ = nghttp2.session_consume_stream(session, id.rawValue, count)
    }

    /// Bytes delivered on the stream and not yet consumed.
    ///
    /// ```swift
    /// connection.consume(connection.unconsumedByteCount(on: id), on: id)  // demand came back
    /// ```
    public func unconsumedByteCount(on id: HTTP2StreamID) -> Int {
        streams[id.rawValue]?.unconsumed ?? 0
    }

    /// Cancels a stream: RST_STREAM(CANCEL); nothing more is reported for
    /// it. Idempotent; ignored for a stream that is gone.
    ///
    /// ```swift
    /// connection.cancelStream(id)          // the subscriber cancelled
    /// connection.produceOutput(into: &out) // RST_STREAM(CANCEL): write it
    /// ```
    public func cancelStream(_ id: HTTP2StreamID) {
        guard streams[id.rawValue]?.isCancelled == false else { return }
        streams[id.rawValue]!.isCancelled = true
        _ = nghttp2.submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id.rawValue, HTTP2ErrorCode.cancel.rawValue)
    }

    /// The peer's flow-control window for uploads on the stream (bytes it
    /// accepts now: the smaller of the stream's and the connection's), or
    /// nil for a stream that is gone. Before the stream's HEADERS went out
    /// it is the peer's initial window.
    ///
    /// ```swift
    /// print(connection.uploadWindow(on: id) ?? 0) // Prints: "65535" before any DATA
    /// ```
    public func uploadWindow(on id: HTTP2StreamID) -> Int? {
        guard streams[id.rawValue] != nil else { return nil }
        var stream = nghttp2.session_get_stream_remote_window_size(session, id.rawValue)
        if stream < 0 {
            // HEADERS not sent yet: nghttp2 creates the stream then. Its
            // window will start at the peer's initial window size.
            stream = Int32(clamping: nghttp2.session_get_remote_settings(session, NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE))
        }
        let connection = nghttp2.session_get_remote_window_size(session)
        return Int(max(0, min(stream, connection)))
    }
}
