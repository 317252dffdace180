internal import CUVCombineLazyLibraries
import HTTPTypes

extension HTTP2ClientConnection {
    /// A client session with our callbacks and options: automatic
    /// WINDOW_UPDATE off (demand is flow control), and the hostile-peer
    /// limits nghttp2 enforces itself (CONTINUATION count, queued
    /// acknowledgements, our encoder's table size), and `blockCache` as
    /// nghttp2's allocator (it must outlive the session). The
    /// user data is set by the caller once `self` exists.
    internal static func makeSession(_ configuration: HTTP2Configuration, _ nghttp2: cuvc_nghttp2_functions,
                                     blockCache: HTTP2BlockCache) -> OpaquePointer? {
        var callbacks: OpaquePointer?
        guard nghttp2.session_callbacks_new(&callbacks) == 0, let callbacks else { return nil }
        defer { nghttp2.session_callbacks_del(callbacks) }
        nghttp2.session_callbacks_set_on_begin_frame_callback(callbacks) { _, header, userData in
            HTTP2ClientConnection.owner(userData).frameBegins(header!.pointee)
        }
        nghttp2.session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, userData in
            HTTP2ClientConnection.owner(userData).headerBlockBegins(frame!.pointee)
        }
        nghttp2.session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, userData in
            HTTP2ClientConnection.owner(userData).headerReceived(
                streamID: frame!.pointee.hd.stream_id,
                name: UnsafeRawBufferPointer(start: name, count: nameLength),
                value: UnsafeRawBufferPointer(start: value, count: valueLength))
        }
        nghttp2.session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, userData in
            HTTP2ClientConnection.owner(userData).frameReceived(frame!)
        }
        nghttp2.session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, userData in
            HTTP2ClientConnection.owner(userData).dataReceived(streamID: streamID, UnsafeRawBufferPointer(start: data, count: length))
        }
        nghttp2.session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, userData in
            HTTP2ClientConnection.owner(userData).streamClosed(streamID, code: HTTP2ErrorCode(rawValue: errorCode))
        }
        nghttp2.session_callbacks_set_on_frame_not_send_callback(callbacks) { _, frame, libraryError, userData in
            HTTP2ClientConnection.owner(userData).frameNotSent(frame!.pointee, libraryError: libraryError)
        }
        nghttp2.session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, userData in
            if UInt32(frame!.pointee.hd.type) == NGHTTP2_GOAWAY.rawValue {
                let connection = HTTP2ClientConnection.owner(userData)
                let goAway = frame!.pointee.goaway
                connection.sentGoAwayCode = HTTP2ErrorCode(rawValue: goAway.error_code)
                // nghttp2 puts its reason ("DATA: stream_id == 0") in the
                // debug data when it ends the connection itself.
                if connection.lastLibraryError == nil, let data = goAway.opaque_data, goAway.opaque_data_len > 0 {
                    let reason = String(decoding: UnsafeRawBufferPointer(start: data, count: goAway.opaque_data_len), as: UTF8.self)
                    connection.lastLibraryError = (NGHTTP2_ERR_PROTO.rawValue, reason)
                }
            }
            return 0
        }
        nghttp2.session_callbacks_set_on_invalid_frame_recv_callback(callbacks) { _, _, libraryError, userData in
            let connection = HTTP2ClientConnection.owner(userData)
            if connection.lastLibraryError == nil {
                connection.lastLibraryError = (libraryError, connection.nghttp2.message(for: libraryError))
            }
            return 0
        }
        nghttp2.session_callbacks_set_error_callback2(callbacks) { _, code, message, length, userData in
            let text = message.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self) }
            HTTP2ClientConnection.owner(userData).lastLibraryError = (code, text ?? "")
            return 0
        }

        var option: OpaquePointer?
        guard nghttp2.option_new(&option) == 0, let option else { return nil }
        defer { nghttp2.option_del(option) }
        nghttp2.option_set_no_auto_window_update(option, 1)
        nghttp2.option_set_max_continuations(option, configuration.maxContinuations)
        // The entries per SETTINGS frame are counted by our begin-frame
        // callback (so the error names the limit); nghttp2's own check runs
        // before that callback, so it is set above anything a frame of
        // the default maximum size (16,384 bytes: 2,730 entries) carries.
        nghttp2.option_set_max_settings(option, 4096)
        nghttp2.option_set_max_outbound_ack(option, configuration.maxOutboundAcks)
        nghttp2.option_set_max_deflate_dynamic_table_size(option, configuration.maxDeflateTableSize)
        // Closed streams are not kept for the priority tree (RFC 9113
        // deprecated it): nothing grows with the number of finished streams.
        nghttp2.option_set_no_closed_streams(option, 1)

        var session: OpaquePointer?
        var memory = blockCache.memory  // copied by nghttp2
        guard nghttp2.session_client_new3(&session, callbacks, nil, option, &memory) == 0 else { return nil }
        return session
    }

    /// The connection behind a callback's user data (set in init; the
    /// session never outlives the connection, which deletes it in deinit).
    internal static func owner(_ userData: UnsafeMutableRawPointer?) -> HTTP2ClientConnection {
        Unmanaged<HTTP2ClientConnection>.fromOpaque(userData!).takeUnretainedValue()
    }

    /// nghttp2's data source callback for uploads: copies what the stream's
    /// buffer holds, up to what the window allows (`length`); defers when
    /// the buffer is empty and the owner has not finished.
    internal static let readUploadCallback: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, userData in
        let connection = HTTP2ClientConnection.owner(userData)
        guard connection.streams[streamID]?.upload != nil else {
            return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
        }
        let written = connection.streams[streamID]!.upload!.take(into: UnsafeMutableRawBufferPointer(start: buffer, count: length))
        let upload = connection.streams[streamID]!.upload!
        if upload.bufferedCount == 0 {
            if upload.isFinished {
                flags!.pointee |= UInt32(NGHTTP2_DATA_FLAG_EOF.rawValue)
            } else if written == 0 {
                connection.streams[streamID]!.upload!.isDeferred = true
                return Int(NGHTTP2_ERR_DEFERRED.rawValue)
            } else {
                connection.drainedUploads.append(streamID)
            }
        }
        return written
    }
}
