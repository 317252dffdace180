#if OpenAPI
import FoundationEssentials
import HTTPTypes
import OpenAPIRuntime
import UVCombineCore
import UVCombineHTTP

/// A swift-openapi-runtime `ClientTransport` that sends a generated
/// client's requests through a ``UVURLSession``: its loop, pool, deadlines,
/// TLS, proxies and decompression, with bodies streamed both ways.
///
/// What a request becomes: the operation's method, path and query, and
/// header fields, joined to the server URL the client was made with (the
/// server URL's path, then the operation's; the operation's query; as
/// swift-openapi-urlsession joins them), sent with the operation's body.
///
/// - Request bodies: a body of known length up to
///   ``Configuration/bufferedRequestBodyLimit`` that may be iterated more
///   than once (what generated code makes for JSON, forms and small byte
///   payloads) is collected and sent in one write. Any other body (of
///   unknown length, too long, or single-pass such as a stream) is
///   streamed with the session's upload API: `Content-Length` when the
///   body's length is known, chunked otherwise, and one chunk pulled from
///   the body each time the previous one was written, so a slow server
///   pauses the body's producer. A single-pass body cannot be sent twice:
///   a 307 or 308 redirect that keeps the body then fails with
///   `.requestBodyFailed`.
/// - Response bodies: returned once the head arrived, as an `HTTPBody`
///   that pulls from the session's streamed response, one part per chunk
///   asked for: while nobody iterates it the session reads nothing and TCP
///   flow control stops the server. Its length is the `Content-Length`
///   unless the session decodes a `Content-Encoding` (then `.unknown`).
///   Dropping the body before its end cancels the request (its connection
///   is closed). `HEAD` responses have no body (`nil`); a 204, a 304 or a
///   `Content-Length: 0` response is read to its end before `send`
///   returns and has an empty body, so its connection goes back to the
///   pool at once.
/// - Errors: transport failures are thrown as the session's
///   ``UVURLError`` (a refused connection, a timeout, a malformed response,
///   a failed upload, ...), and a server URL or path the session cannot
///   send as `.badURL` or `.unsupportedURL`; the runtime wraps them in its
///   `ClientError` (`underlyingError`). Failures while the response body
///   is read are thrown by the body's iterator. HTTP 4xx and 5xx are
///   responses, never errors: the generated client matches them to the
///   documented responses.
/// - Cancellation: cancelling the task that awaits the operation (or
///   iterates the response body) cancels the request and throws
///   `CancellationError`.
///
/// Threading: a `Sendable` value; call from any task. The session's loop
/// must be running (``UVLoopThread``, or `loop.run()` on its thread). A
/// client called from a task whose executor preference is the loop (or
/// from an actor on it) runs on the loop thread end to end, the
/// session's deliveries included; from elsewhere each response part hops
/// from the loop to the caller.
///
/// ```swift
/// import OpenAPIRuntime
/// import UVCombine
/// import UVCombineOpenAPI
///
/// let background = try UVLoopThread()
/// let session = UVURLSession(loop: background.loop)
/// let client = Client(                       // made by swift-openapi-generator
///     serverURL: URL(string: "http://127.0.0.1:8080/api")!,
///     transport: UVURLSessionTransport(session: session))
/// let pet = try await Task(executorPreference: background.executor) {
///     try await client.getPet(path: .init(petId: 1)).ok.body.json
/// }.value
/// ```
public struct UVURLSessionTransport: ClientTransport {
    /// What the transport sends through, and how.
    public var configuration: Configuration

    /// Creates a transport with `configuration`.
    ///
    /// Any thread.
    ///
    /// ```swift
    /// var configuration = UVURLSessionTransport.Configuration(session: session)
    /// configuration.bufferedRequestBodyLimit = 0 // stream every body
    /// let transport = UVURLSessionTransport(configuration: configuration)
    /// ```
    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Creates a transport that sends through `session`, with the default
    /// configuration otherwise.
    ///
    /// Any thread.
    ///
    /// ```swift
    /// let transport = UVURLSessionTransport(session: UVURLSession(loop: background.loop))
    /// ```
    public init(session: UVURLSession) {
        self.init(configuration: Configuration(session: session))
    }

    /// Sends `request` with `body` to the server at `baseURL` and returns
    /// the response head and its streamed body, as the type's notes say.
    /// Called by generated clients; `operationID` is not sent.
    ///
    /// Any task; isolation, cancellation and errors as in the type's notes.
    ///
    /// ```swift
    /// let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/pets/1")
    /// let (response, body) = try await transport.send(
    ///     request, body: nil, baseURL: URL(string: "http://127.0.0.1:8080/api")!, operationID: "getPet")
    /// let json = try await Data(collecting: body!, upTo: 1 << 20)
    /// ```
    public func send(
        _ request: HTTPRequest, body: OpenAPIRuntime.HTTPBody?, baseURL: URL, operationID: String
    ) async throws -> (HTTPResponse, OpenAPIRuntime.HTTPBody?) {
        let session = configuration.session
        let sent = try RequestTarget.request(for: request, baseURL: baseURL)
        let publisher = try await bytesPublisher(sent, body: body)
        let stream = ResponseStream(loop: session.loop)
        // Dropped on every early exit (a throw, the task's cancellation):
        // its deinit cancels the request.
        let owner = ResponseStreamOwner(stream)
        publisher.subscribe(stream)
        guard case .head(let response)? = try await stream.nextPart() else {
            throw UVURLError(.badServerResponse, detail: "the response ended before its head")
        }
        if request.method == .head {
            try await readToEnd(stream)
            return (response, nil)
        }
        if response.hasEmptyBody {
            try await readToEnd(stream)
            return (response, OpenAPIRuntime.HTTPBody())
        }
        let length = response.bodyLength(decoded: session.configuration.decompressesResponses)
        let parts = ResponseBodyParts(owner: owner)
        return (response, OpenAPIRuntime.HTTPBody(parts, length: length, iterationBehavior: .single))
    }

    // MARK: Implementation

    /// The session's streamed-response publisher for `request` with `body`:
    /// collected when small and repeatable, streamed otherwise.
    private func bytesPublisher(_ request: HTTPRequest, body: OpenAPIRuntime.HTTPBody?) async throws
        -> UVURLSession.BytesPublisher
    {
        let session = configuration.session
        guard let body else {
            return session.bytesPublisher(for: request)
        }
        if body.iterationBehavior == .multiple, case .known(let length) = body.length,
           length <= Int64(configuration.bufferedRequestBodyLimit) {
            let bytes = try await Data(collecting: body, upTo: Int(length))
            return session.bytesPublisher(for: request, body: bytes)
        }
        let contentLength: Int?
        switch body.length {
        case .known(let length):
            guard let length = Int(exactly: length), length >= 0 else {
                throw UVURLError(.requestBodyLengthMismatch, detail: "the body's length \(body.length) is not a byte count")
            }
            contentLength = length
        case .unknown:
            contentLength = nil
        }
        return session.bytesPublisher(for: request, bodyPublisher: RequestBodyChunks(body: body).uvPublisher,
                                      contentLength: contentLength)
    }

    /// Reads `stream` to its end (a response with no body to hand out),
    /// so the connection returns to the pool.
    private func readToEnd(_ stream: ResponseStream) async throws {
        while try await stream.nextPart() != nil {}
    }
}
#endif
