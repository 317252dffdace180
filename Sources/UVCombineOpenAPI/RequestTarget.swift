#if OpenAPI
import FoundationEssentials
import HTTPTypes
import UVCombineHTTPCore

/// Joins an operation's request (method, path and query, header fields)
/// to the server URL a generated client was made with, into a request the
/// session can send.
///
/// The joining follows swift-openapi-urlsession's transport (and
/// AsyncHTTPClient's): the server URL's percent-encoded path, then the
/// operation's percent-encoded path, appended as they are (a server URL
/// ending in `/` gives `//`, as there); the query is the operation's
/// (the server URL's own query is dropped, as there); the fragment is
/// never sent. Both parts arrive percent-encoded (the generator encodes
/// path parameters and query items), and are not encoded again; bytes a
/// URL may not hold are percent-encoded by the session's URL parser, as
/// `URL(string:)` does. The result is then checked as every session URL
/// is (``HTTPRequestTarget``): scheme `http`, `https`, `http+unix` or
/// `https+unix`, a host, a valid port, no user info, no CR, LF or NUL.
///
/// Threading: pure functions; any thread.
internal enum RequestTarget {
    /// The request to send for `request` (whose `path` is the operation's
    /// path and query) against `baseURL`.
    ///
    /// - Throws: ``UVURLError`` `.badURL` (no host, user info, a bad port,
    ///   control bytes, a request without a path) or `.unsupportedURL` (a
    ///   scheme other than http, https or their `+unix` forms).
    internal static func request(for request: HTTPRequest, baseURL: URL) throws(UVURLError) -> HTTPRequest {
        let target = try HTTPRequestTarget(string: joined(baseURL.absoluteString, request.path))
        return target.makeRequest(method: request.method, headerFields: request.headerFields)
    }

    /// `base`'s scheme, authority and path, then `operation`'s path and
    /// query.
    internal static func joined(_ base: String, _ operation: String?) throws(UVURLError) -> String {
        guard let operation else {
            throw UVURLError(.badURL, detail: "the operation's request has no path")
        }
        guard let reference = HTTPURLReference(parsing: base), let scheme = reference.scheme,
              let authority = reference.authority else {
            throw UVURLError(.badURL, detail: "the server URL \"\(base)\" is not an absolute URL with a host")
        }
        let operationPath: Substring
        let operationQuery: Substring?
        if let mark = operation.firstIndex(of: "?") {
            operationPath = operation[..<mark]
            operationQuery = operation[operation.index(after: mark)...]
        } else {
            operationPath = operation[...]
            operationQuery = nil
        }
        var joined = scheme
        joined += "://"
        joined += authority
        joined += reference.path
        joined += operationPath
        if let operationQuery {
            joined += "?"
            joined += operationQuery
        }
        return joined
    }
}
#endif
