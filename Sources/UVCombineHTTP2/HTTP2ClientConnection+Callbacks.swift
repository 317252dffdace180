internal import CUVCombineLazyLibraries
import HTTPTypes

/// nghttp2's callbacks, as methods: each returns 0 to go on, or
/// `NGHTTP2_ERR_CALLBACK_FAILURE` after recording the limit that was broken
/// in `pendingFailure` (nghttp2 then stops and `receive` fails the
/// connection with it).
extension HTTP2ClientConnection {
    internal var callbackFailure: Int32 { NGHTTP2_ERR_CALLBACK_FAILURE.rawValue }

    /// Every frame's header, before its payload: the flood counters, so a
    /// flood is stopped at its first excess frame.
    internal func frameBegins(_ header: nghttp2_frame_hd) -> Int32 {
        let isAck = header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0
        switch UInt32(header.type) {
        case NGHTTP2_RST_STREAM.rawValue:
            if !resetLimit.record(now: now) {
                return fail(HTTP2Error(.resetFlood, errorCode: .enhanceYourCalm,
                                       detail: "more than \(configuration.maxPeerResets) RST_STREAM frames in \(configuration.floodWindow)"))
            }
        case NGHTTP2_PING.rawValue where !isAck:
            if !pingLimit.record(now: now) {
                return fail(HTTP2Error(.pingFlood, errorCode: .enhanceYourCalm,
                                       detail: "more than \(configuration.maxPeerPings) PING frames in \(configuration.floodWindow)"))
            }
        case NGHTTP2_SETTINGS.rawValue where !isAck:
            // Checked here rather than left to nghttp2's max_settings so the
            // error says which limit (nghttp2 sends only ENHANCE_YOUR_CALM).
            if header.length / 6 > configuration.maxSettingsEntries {
                return fail(HTTP2Error(.settingsFlood, errorCode: .enhanceYourCalm,
                                       detail: "\(header.length / 6) entries in one SETTINGS frame, limit \(configuration.maxSettingsEntries)"))
            }
            if !settingsLimit.record(now: now) {
                return fail(HTTP2Error(.settingsFlood, errorCode: .enhanceYourCalm,
                                       detail: "more than \(configuration.maxPeerSettingsFrames) SETTINGS frames in \(configuration.floodWindow)"))
            }
        default:
            break
        }
        return 0
    }

    internal func headerBlockBegins(_ frame: nghttp2_frame) -> Int32 {
        guard streams[frame.hd.stream_id] != nil else { return 0 }
        updateStream(frame.hd.stream_id) { $0.beginHeaderBlock() }
        headCache.begin(expectsFinalHead: streams[frame.hd.stream_id]!.phase == .awaitingHead)
        return 0
    }

    /// One response field: counted against the header list limit, then
    /// kept (`:status` apart; other pseudo-headers are nghttp2's to refuse).
    internal func headerReceived(streamID: Int32, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Int32 {
        guard streams[streamID] != nil else { return 0 }
        let size = streams[streamID]!.headerListSize + name.count + value.count + 32
        updateStream(streamID) { $0.headerListSize = size }
        if size > configuration.maxHeaderListSize {
            return fail(HTTP2Error(.headerListTooLarge, errorCode: .enhanceYourCalm,
                                   detail: "more than \(configuration.maxHeaderListSize) bytes on stream \(streamID)"))
        }
        if name.first == UInt8(ascii: ":") {
            if name.elementsEqual(":status".utf8) {
                let status = HTTP2ClientConnection.statusCode(value)
                updateStream(streamID) { $0.status = status }
            }
            return 0
        }
        // The same field as the last head's, in the same place: nothing
        // to collect (HTTP2HeadCache).
        if headCache.matched != nil {
            if headCache.repeats(name: name, value: value) { return 0 }
            let matched = headCache.divergedPrefix()
            updateStream(streamID) { $0.fields = matched }
        }
        // `parsed:`: HTTP/2 names arrive lowercased (nghttp2 refused any
        // other), so nothing is lowercased again.
        guard let fieldName = HTTPField.Name(parsed: String(decoding: name, as: UTF8.self)) else { return 0 }
        let field = HTTPField(name: fieldName, value: String(decoding: value, as: UTF8.self))
        updateStream(streamID) { $0.fields.append(field) }
        return 0
    }

    internal func frameReceived(_ pointer: UnsafePointer<nghttp2_frame>) -> Int32 {
        let header = pointer.pointee.hd
        let endsStream = header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        switch UInt32(header.type) {
        case NGHTTP2_HEADERS.rawValue:
            headersReceived(streamID: header.stream_id)
            if endsStream { streamEnded(header.stream_id) }
        case NGHTTP2_DATA.rawValue:
            if endsStream { streamEnded(header.stream_id) }
        case NGHTTP2_SETTINGS.rawValue where header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
            let settings = currentPeerSettings()
            peerSettings = settings
            emit(.settingsReceived(settings))
        case NGHTTP2_PING.rawValue where header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0:
            let sent = withUnsafeBytes(of: pointer.pointee.ping.opaque_data) { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) }
            emit(.pingAcknowledged(roundTripNanoseconds: now >= sent ? now - sent : 0))
        case NGHTTP2_RST_STREAM.rawValue:
            streams[header.stream_id]?.peerResetCode = HTTP2ErrorCode(rawValue: pointer.pointee.rst_stream.error_code)
        case NGHTTP2_GOAWAY.rawValue:
            let goAway = pointer.pointee.goaway
            let last = HTTP2StreamID(goAway.last_stream_id)
            let code = HTTP2ErrorCode(rawValue: goAway.error_code)
            receivedGoAway = (last, code)
            let debug = goAway.opaque_data.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: goAway.opaque_data_len), as: UTF8.self) } ?? ""
            emit(.goAwayReceived(lastStreamID: last, errorCode: code, debugData: debug))
        default:
            break
        }
        return 0
    }

    /// A header block ended on a stream: a 1xx head, the final head, or
    /// trailers.
    private func headersReceived(streamID: Int32) {
        guard let stream = streams[streamID], !stream.isCancelled else { return }
        let id = HTTP2StreamID(streamID)
        switch stream.phase {
        case .awaitingHead:
            guard let code = stream.status else { return }
            let response = headCache.finish(status: code, received: stream.fields)
            if (100..<200).contains(code) {
                emit(.informationalHead(id, response))
            } else {
                updateStream(streamID) { $0.phase = .body }
                emit(.head(id, response))
            }
        case .body:
            emit(.trailers(id, stream.fields))
        case .ended:
            break
        }
        updateStream(streamID) { $0.fields = HTTPFields() }
    }

    private func streamEnded(_ streamID: Int32) {
        guard let stream = streams[streamID], !stream.isCancelled, stream.phase != .ended else { return }
        updateStream(streamID) { $0.phase = .ended }
        emit(.end(HTTP2StreamID(streamID)))
    }

    /// DATA payload: the connection's window gets it back at once (so a
    /// stalled stream holds up no other); the stream's only when the owner
    /// consumes it.
    internal func dataReceived(streamID: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        _ = nghttp2.session_consume_connection(session, bytes.count)
        guard let stream = streams[streamID] else { return 0 }
        if stream.isCancelled {
            _ = nghttp2.session_consume_stream(session, streamID, bytes.count)
            return 0
        }
        updateStream(streamID) { $0.unconsumed += bytes.count }
        emit(.data(HTTP2StreamID(streamID), bytes))
        return 0
    }

    internal func streamClosed(_ streamID: Int32, code: HTTP2ErrorCode) -> Int32 {
        guard let stream = streams.removeValue(forKey: streamID), !stream.isCancelled, stream.phase != .ended else { return 0 }
        emit(.streamFailed(HTTP2StreamID(streamID), streamError(streamID, stream, code: code)))
        return 0
    }

    private func streamError(_ streamID: Int32, _ stream: HTTP2StreamState, code: HTTP2ErrorCode) -> HTTP2Error {
        if let goAway = receivedGoAway, streamID > goAway.lastStreamID.rawValue {
            return HTTP2Error(.refusedStream, errorCode: code, detail: "above GOAWAY's last stream id \(goAway.lastStreamID)")
        }
        if code == .refusedStream {
            return HTTP2Error(.refusedStream, errorCode: code, detail: "REFUSED_STREAM from the server")
        }
        if stream.peerResetCode != nil {
            return HTTP2Error(.streamReset, errorCode: code, detail: "RST_STREAM from the server")
        }
        // We reset it for a stream error the server caused (nghttp2's
        // checks): say which rule it broke.
        let detail = lastLibraryError?.message ?? "reset by the client"
        switch code {
        case .flowControlError: return HTTP2Error(.flowControlError, errorCode: code, detail: detail)
        case .protocolError: return HTTP2Error(.protocolError, errorCode: code, detail: detail)
        default: return HTTP2Error(.streamReset, errorCode: code, detail: detail)
        }
    }

    /// A HEADERS that could not be sent (GOAWAY came first): the request
    /// never left, so it is retryable.
    internal func frameNotSent(_ frame: nghttp2_frame, libraryError: Int32) -> Int32 {
        guard UInt32(frame.hd.type) == NGHTTP2_HEADERS.rawValue,
              let stream = streams.removeValue(forKey: frame.hd.stream_id), !stream.isCancelled else { return 0 }
        emit(.streamFailed(HTTP2StreamID(frame.hd.stream_id),
                           HTTP2Error(.refusedStream, detail: "HEADERS not sent: " + nghttp2.message(for: libraryError))))
        return 0
    }

    private func fail(_ error: HTTP2Error) -> Int32 {
        if pendingFailure == nil { pendingFailure = error }
        return callbackFailure
    }

    private func currentPeerSettings() -> HTTP2PeerSettings {
        func value(_ id: nghttp2_settings_id) -> UInt32 { nghttp2.session_get_remote_settings(session, id) }
        let concurrent = value(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
        let headerList = value(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE)
        return HTTP2PeerSettings(
            maxConcurrentStreams: concurrent == UInt32.max ? nil : Int(concurrent),
            initialWindowSize: Int(value(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE)),
            maxFrameSize: Int(value(NGHTTP2_SETTINGS_MAX_FRAME_SIZE)),
            maxHeaderListSize: headerList == UInt32.max ? nil : Int(headerList))
    }

    /// `:status` as a number (nghttp2 checked it is three digits).
    internal static func statusCode(_ value: UnsafeRawBufferPointer) -> Int? {
        guard value.count == 3 else { return nil }
        var code = 0
        for byte in value {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            code = code * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return code
    }
}
