#if OpenAPI
import HTTPTypes
import OpenAPIRuntime

extension HTTPResponse {
    /// Whether the response's framing says its body is empty: 204, 304,
    /// or `Content-Length: 0`. (HEAD responses are told by the request.)
    internal var hasEmptyBody: Bool {
        status.code == 204 || status.code == 304 || headerFields[.contentLength] == "0"
    }

    /// The length of the body the session delivers: `Content-Length`,
    /// unless the session decodes a `Content-Encoding` (`decoded`), whose
    /// delivered length is not the encoded one the field counts.
    internal func bodyLength(decoded: Bool) -> OpenAPIRuntime.HTTPBody.Length {
        if decoded, headerFields[.contentEncoding] != nil { return .unknown }
        guard let field = headerFields[.contentLength], let length = Int64(field), length >= 0 else {
            return .unknown
        }
        return .known(length)
    }
}
#endif
