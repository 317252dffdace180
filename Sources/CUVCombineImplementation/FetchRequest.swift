import CUVCombine
import HTTPTypes
import UVCombineHTTPClient
import UVCombineHTTPCore

/// A `uvc_request_t` read and checked, so that bad input fails the call
/// that passed it (uvc_fetch, uvc_shared_fetch_new) with a code, before
/// anything is queued: the `HTTPRequest` and body the session sends.
///
/// Threading: a value; read on the calling thread, during the call.
internal struct FetchRequest {
    /// The refusal of a request: the status the C function returns.
    internal struct Refusal: Error {
        internal let status: Int32
    }

    internal let request: HTTPRequest
    internal let body: [UInt8]?

    /// Reads `raw`. Throws `UV_EINVAL` for missing pointers (checked before
    /// anything else), then the URL's code (`UVC_EBADURL`,
    /// `UVC_EUNSUPPORTEDURL`), then `UVC_EBADREQUEST` for the method and
    /// the header fields.
    internal init(_ raw: uvc_request_t) throws(Refusal) {
        guard let urlPointer = raw.url else { throw Refusal(status: Status.invalid) }
        // size_t arrives as Int: a count above Int.max reads as negative.
        if raw.header_count != 0 {
            guard raw.header_count > 0, let headers = raw.headers else { throw Refusal(status: Status.invalid) }
            for index in 0..<raw.header_count where headers[index].name == nil || headers[index].value == nil {
                throw Refusal(status: Status.invalid)
            }
        }
        if raw.body_length != 0 && (raw.body_length < 0 || raw.body == nil) {
            throw Refusal(status: Status.invalid)
        }

        guard let urlString = String(validatingCString: urlPointer) else {
            throw Refusal(status: UVC_EBADURL.rawValue)
        }
        let target: HTTPRequestTarget
        do throws(UVURLError) {
            target = try HTTPRequestTarget(string: urlString)
        } catch {
            throw Refusal(status: FetchResult.status(for: error.code))
        }

        let badRequest = Refusal(status: UVC_EBADREQUEST.rawValue)
        var method = HTTPRequest.Method.get
        if let methodPointer = raw.method {
            guard let text = String(validatingCString: methodPointer) else { throw badRequest }
            do throws(UVURLError) {
                try HTTPRequestValidation.validateMethod(text)
            } catch {
                throw badRequest
            }
            guard let parsed = HTTPRequest.Method(text) else { throw badRequest }
            method = parsed
        }

        var fields = HTTPFields()
        if let headers = raw.headers, raw.header_count > 0 {
            for index in 0..<raw.header_count {
                guard let name = String(validatingCString: headers[index].name!),
                      let value = String(validatingCString: headers[index].value!)
                else { throw badRequest }
                // The library writes Host and the body's length itself: a
                // field that would contradict them fails the call here rather
                // than the fetch later (uvcombine.h, uvc_request_t).
                switch name.lowercased() {
                case "host", "transfer-encoding":
                    throw Refusal(status: Status.invalid)
                case "content-length" where value != String(raw.body_length):
                    throw Refusal(status: Status.invalid)
                default:
                    break
                }
                do throws(UVURLError) {
                    fields.append(try HTTPField.strict(name: name, value: value))
                } catch {
                    throw badRequest
                }
            }
        }

        request = target.makeRequest(method: method, headerFields: fields)
        if let bodyPointer = raw.body, raw.body_length > 0 {
            body = Array(UnsafeRawBufferPointer(start: bodyPointer, count: raw.body_length))
        } else {
            body = nil
        }
    }

    /// Reads the request behind a C pointer; `UV_EINVAL` for NULL.
    internal static func read(_ raw: UnsafePointer<uvc_request_t>?) throws(Refusal) -> FetchRequest {
        guard let raw, let request = SizedStruct.read(raw, over: .empty, fieldStarts: uvc_request_t.fieldStarts) else {
            throw Refusal(status: Status.invalid)
        }
        return try FetchRequest(request)
    }
}
