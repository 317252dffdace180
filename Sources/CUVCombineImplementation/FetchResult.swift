import CLibUV
import CUVCombine
import HTTPTypes
import UVCombineHTTPClient
import UVCombineHTTPCore

/// What a fetch callback receives, built for the duration of one call: the
/// `uvc_response_t` (its strings in one buffer, the body pointing into the
/// `Data` itself) and the `uvc_fetch_error_t`; and the mapping from
/// ``UVURLError`` to the header's codes.
///
/// Threading: stateless; the views live only inside the closures.
internal enum FetchResult {
    /// The header's code for a session error code (UVC_FETCH_ERRNO_MAP);
    /// `.cancelled` is `UV_ECANCELED`, a code this version does not know
    /// `UV_EIO`.
    internal static func status(for code: UVURLError.Code) -> Int32 {
        switch code {
        case .badURL: UVC_EBADURL.rawValue
        case .timedOut: UVC_ETIMEDOUT.rawValue
        case .unsupportedURL: UVC_EUNSUPPORTEDURL.rawValue
        case .cannotFindHost: UVC_ECANNOTFINDHOST.rawValue
        case .cannotConnectToHost: UVC_ECANNOTCONNECT.rawValue
        case .networkConnectionLost: UVC_ECONNECTIONLOST.rawValue
        case .httpTooManyRedirects: UVC_ETOOMANYREDIRECTS.rawValue
        case .resourceUnavailable: UVC_EUNAVAILABLE.rawValue
        case .badServerResponse: UVC_EBADRESPONSE.rawValue
        case .dataLengthExceedsMaximum: UVC_ETOOLARGE.rawValue
        case .invalidRequest: UVC_EBADREQUEST.rawValue
        case .insecureRedirect: UVC_EINSECUREREDIRECT.rawValue
        case .secureConnectionFailed: UVC_ESECURECONNECTION.rawValue
        case .serverCertificateHasBadDate: UVC_ECERTBADDATE.rawValue
        case .serverCertificateUntrusted: UVC_ECERTUNTRUSTED.rawValue
        case .serverCertificateHasUnknownRoot: UVC_ECERTUNKNOWNROOT.rawValue
        case .serverCertificateNotYetValid: UVC_ECERTNOTYETVALID.rawValue
        case .serverCertificateHostnameMismatch: UVC_ECERTHOSTNAME.rawValue
        case .tlsProtocolError: UVC_ETLSPROTOCOL.rawValue
        case .cancelled: Status.cancelled
        default: UV_EIO.rawValue
        }
    }

    /// The libuv code behind an error (`underlyingErrorName`, such as
    /// `"UV_ECONNREFUSED"`), or 0. Looks the name up among libuv's codes
    /// with `uv_err_name_r`, which (unlike `uv_err_name`) allocates nothing
    /// for unknown codes: errno values, then the `UV_EAI_*` and libuv's own
    /// ranges. Only on the failure path.
    internal static func uvCode(of error: UVURLError) -> Int32 {
        guard let name = error.underlyingErrorName, name.hasPrefix("UV_") else { return 0 }
        let wanted = String(name.dropFirst(3))
        var buffer = [CChar](repeating: 0, count: 64)
        let candidates = Array(-200 ... -1) + Array(-3100 ... -3000) + Array(-4095 ... -4000)
        for code in candidates.reversed() {
            let matches = buffer.withUnsafeMutableBufferPointer { buffer -> Bool in
                _ = uv_err_name_r(Int32(code), buffer.baseAddress, buffer.count)
                return String(cString: buffer.baseAddress!) == wanted
            }
            if matches { return Int32(code) }
        }
        return 0
    }

    /// Runs `body` with a view of `response` and its `data`.
    internal static func withResponse(_ response: HTTPResponse, body data: HTTPBody,
                                      _ body: (UnsafePointer<uvc_response_t>) -> Void) {
        let fields = response.headerFields
        let reason = response.status.reasonPhrase
        // Every string NUL-terminated, in one buffer: the reason, then each
        // field's name and value.
        var byteCount = reason.utf8.count + 1
        for field in fields {
            byteCount += field.name.rawName.utf8.count + 1 + field.value.utf8.count + 1
        }
        let strings = UnsafeMutablePointer<CChar>.allocate(capacity: byteCount)
        defer { strings.deallocate() }
        let headers = UnsafeMutablePointer<uvc_header_t>.allocate(capacity: Swift.max(fields.count, 1))
        defer { headers.deallocate() }

        var cursor = strings
        func copy(_ text: String) -> UnsafePointer<CChar> {
            let start = cursor
            for byte in text.utf8 {
                cursor.pointee = CChar(bitPattern: byte)
                cursor += 1
            }
            cursor.pointee = 0
            cursor += 1
            return UnsafePointer(start)
        }
        let reasonPointer = copy(reason)
        for (index, field) in fields.enumerated() {
            let name = copy(field.name.rawName)
            let value = copy(field.value)
            (headers + index).initialize(to: uvc_header_t(name: name, value: value))
        }
        // An empty body still gets a valid pointer (the reason's NUL).
        let start = data.pointer.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(reasonPointer + reason.utf8.count)
        var view = uvc_response_t(status: Int32(clamping: response.status.code), reason: reasonPointer,
                                  headers: headers, header_count: fields.count,
                                  body: start, body_length: data.count)
        withUnsafePointer(to: &view) { body($0) }
        withExtendedLifetime(data) {}
    }

    /// Runs `body` with the response of a failed fetch: status 0, no
    /// reason, no headers, no body (every pointer valid).
    internal static func withNoResponse(_ body: (UnsafePointer<uvc_response_t>) -> Void) {
        var empty = uvc_header_t(name: nil, value: nil)
        withUnsafePointer(to: &empty) { headers in
            "".withCString { nothing in
                var view = uvc_response_t(status: 0, reason: nothing, headers: headers, header_count: 0,
                                          body: UnsafeRawPointer(nothing), body_length: 0)
                withUnsafePointer(to: &view) { body($0) }
            }
        }
    }

    /// Runs `body` with the error of a fetch that got a response: code 0,
    /// message "".
    internal static func withNoError(_ body: (UnsafePointer<uvc_fetch_error_t>) -> Void) {
        "".withCString { nothing in
            var view = uvc_fetch_error_t(code: 0, uv_code: 0, message: nothing)
            withUnsafePointer(to: &view) { body($0) }
        }
    }

    /// Runs `body` with an error view.
    internal static func withError(status: Int32, uvCode: Int32, message: String,
                                   _ body: (UnsafePointer<uvc_fetch_error_t>) -> Void) {
        message.withCString { text in
            var view = uvc_fetch_error_t(code: status, uv_code: uvCode, message: text)
            withUnsafePointer(to: &view) { body($0) }
        }
    }
}
