import FoundationEssentials
import HTTPTypes
import UVCombineHTTPClient

// The session's publishers in Foundation's types (`URL`, `Data`): the
// engine below (UVCombineHTTPClient) speaks bytes and checked targets;
// these convert at the edge, once per publisher.
extension UVURLSession {
    /// Returns a publisher that fetches `url` with a GET request.
    ///
    /// Nothing happens until a subscriber requests a value; then one
    /// `(data, response)` arrives (4xx and 5xx responses too) and the
    /// publisher finishes, or it fails with a `UVURLError`. Each
    /// subscription sends a new request, so `retry(_:)` re-issues it.
    ///
    /// ```swift
    /// session.dataTaskPublisher(for: url)
    ///     .map(\.data)
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0.count) })
    /// ```
    public func dataTaskPublisher(for url: URL) -> DataTaskPublisher {
        DataTaskPublisher(task: taskRequest(url: url), session: self)
    }

    /// Returns a publisher that sends `request` with `body`.
    ///
    /// The request's scheme and authority say where it goes; its path is
    /// the request target. Header fields are sent as given. swift-http-types
    /// already turns CR, LF and NUL into spaces when the request is built;
    /// the session checks each field again and fails the task with
    /// `.invalidRequest` before anything is sent when one is still not valid
    /// (leading or trailing whitespace from `HTTPField(name:lenientValue:)`,
    /// a `Transfer-Encoding` field, a `Content-Length` that disagrees with
    /// `body`). `Host` and `Content-Length` are written by the session.
    ///
    /// ```swift
    /// var request = HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1:8080", path: "/items")
    /// request.headerFields[.contentType] = "application/json"
    /// let publisher = session.dataTaskPublisher(for: request, body: Data(#"{"name":"a"}"#.utf8))
    /// ```
    public func dataTaskPublisher(for request: HTTPRequest, body: Data? = nil) -> DataTaskPublisher {
        DataTaskPublisher(task: taskRequest(request: request, body: body), session: self)
    }

    /// Returns a publisher that fetches `url` with a GET request and
    /// streams the response: the head, then the body in parts as they
    /// arrive, then finished. The subscriber's demand drives the socket.
    ///
    /// ```swift
    /// session.bytesPublisher(for: url)
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { part in
    ///         switch part {
    ///         case .head(let response): print(response.status)
    ///         case .body(let chunk): print(chunk.count)
    ///         }
    ///     })
    /// ```
    public func bytesPublisher(for url: URL) -> BytesPublisher {
        BytesPublisher(task: taskRequest(url: url), session: self)
    }

    /// Returns a publisher that sends `request` with `body` and streams the
    /// response; see ``bytesPublisher(for:)-(URL)``.
    ///
    /// ```swift
    /// let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:8080", path: "/big")
    /// let parts = session.bytesPublisher(for: request)
    /// ```
    public func bytesPublisher(for request: HTTPRequest, body: Data? = nil) -> BytesPublisher {
        BytesPublisher(task: taskRequest(request: request, body: body), session: self)
    }

}
