import FoundationEssentials
import HTTPTypes
import UVCombineCore
import UVCombineHTTPCore

/// Streamed uploads: a request body given as a publisher of `Data`, or read
/// from a file, sent as it comes without ever being held whole.
///
/// How the body goes out:
/// - Framing: with a length (the `contentLength` argument, the request's
///   own `Content-Length` field, or a file's size) the body is sent with
///   `Content-Length`; without one, with `Transfer-Encoding: chunked`.
///   A body publisher that finishes before the announced length or sends
///   more fails the task with `UVURLError/Code/requestBodyLengthMismatch`.
/// - Backpressure: the session subscribes to the body publisher when the
///   request head is written and asks for one chunk at a time
///   (`request(.max(1))`): the next when the previous chunk's write
///   completed, i.e. when the kernel took it. So besides the kernel's send
///   buffer, at most one chunk is in flight, and a file of any size
///   uploads in flat memory.
/// - Threading: the body publisher is subscribed, asked and cancelled on
///   the session's loop thread; it may deliver on any thread (chunks from
///   another thread hop to the loop). The `progress` handler runs on the
///   loop thread.
/// - Failure: a body publisher that fails fails the task with
///   `UVURLError/Code/requestBodyFailed` (naming the publisher's error);
///   the connection is closed (the server saw part of a request) and the
///   pool carries on with a fresh one.
/// - Cancellation: when the task is cancelled, fails or times out, the
///   body publisher's subscription is cancelled. A response that ends
///   before the body was sent (a `413`) is delivered; the body's
///   subscription is cancelled and the connection closed.
/// - Sending again: a redirect that keeps the body (307, 308) or the
///   pool's transparent retry of an idempotent request on a stale
///   keep-alive connection subscribes to the body publisher again, as
///   URLSession asks its delegate for a new body stream
///   (`urlSession(_:task:needNewBodyStream:)`). A publisher that cannot
///   replay its bytes (a subject) should not be used with redirects that
///   keep the body; a 303 (and a 301 or 302 after POST) drops the body.
/// - Timeouts: each completed write counts as activity for the idle
///   timeout; a body publisher that sends nothing for
///   `Configuration/idleReadTimeout` times the task out.
extension UVURLSession {
    /// Returns a publisher that sends `request` with a body streamed from
    /// `bodyPublisher`, and delivers the response as
    /// ``dataTaskPublisher(for:body:)`` does. See the extension's notes on
    /// framing, backpressure and failures.
    ///
    /// - Parameters:
    ///   - request: What to send; its scheme and authority say where.
    ///   - bodyPublisher: The body, one `Data` chunk per value.
    ///   - contentLength: The body's length, sent as `Content-Length`;
    ///     `nil` uses the request's own `Content-Length` field, or chunked
    ///     transfer coding when it has none.
    ///   - options: Per-request deadlines overriding the session's.
    ///   - progress: Hears the body bytes sent so far, on the loop thread.
    ///
    /// ```swift
    /// let chunks = Publishers.Sequence<[Data], Never>(sequence: parts)
    /// var request = HTTPRequest(method: .put, scheme: "http", authority: "127.0.0.1:8080", path: "/upload")
    /// request.headerFields[.contentType] = "application/octet-stream"
    /// let cancellable = session.dataTaskPublisher(for: request, bodyPublisher: chunks)
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0.response.status) })
    /// ```
    public func dataTaskPublisher<Body: Publisher>(
        for request: HTTPRequest,
        bodyPublisher: Body,
        contentLength: Int? = nil,
        options: RequestOptions = RequestOptions(),
        progress: ((UploadProgress) -> Void)? = nil
    ) -> DataTaskPublisher where Body.Output == Data {
        DataTaskPublisher(task: streamedTask(request, RequestBodySource(bodyPublisher, progress: progress),
                                             contentLength: contentLength, options: options),
                          session: self)
    }

    /// Returns a publisher that sends `request` with a body streamed from
    /// `bodyPublisher` and streams the response, as
    /// ``bytesPublisher(for:body:)`` does. The body is sent as
    /// ``dataTaskPublisher(for:bodyPublisher:contentLength:options:progress:)``
    /// sends it.
    ///
    /// ```swift
    /// let echo = session.bytesPublisher(for: request, bodyPublisher: chunks, contentLength: 1 << 20)
    /// ```
    public func bytesPublisher<Body: Publisher>(
        for request: HTTPRequest,
        bodyPublisher: Body,
        contentLength: Int? = nil,
        options: RequestOptions = RequestOptions(),
        progress: ((UploadProgress) -> Void)? = nil
    ) -> BytesPublisher where Body.Output == Data {
        BytesPublisher(task: streamedTask(request, RequestBodySource(bodyPublisher, progress: progress),
                                          contentLength: contentLength, options: options),
                       session: self)
    }

    /// Returns a publisher that sends `request` with the contents of the
    /// file at `fileURL` as its body: `URLSession.uploadTask(with:fromFile:)`.
    ///
    /// The file is read in chunks of 256 KiB on the loop thread, one
    /// chunk when the previous one was written (never whole), and sent
    /// with `Content-Length` set to the file's size when the publisher is
    /// made. Each subscription reads the file again. A file that cannot be
    /// examined or opened fails the task with
    /// `UVURLError/Code/cannotOpenFile`; one that changed size since,
    /// with `UVURLError/Code/requestBodyLengthMismatch`.
    ///
    /// ```swift
    /// let request = HTTPRequest(method: .put, scheme: "http", authority: "127.0.0.1:8080", path: "/backup.tar")
    /// let cancellable = session.uploadTaskPublisher(for: request, fromFile: URL(fileURLWithPath: "/tmp/backup.tar")) {
    ///     print("\(Int(($0.fractionCompleted ?? 0) * 100)) %")
    /// }
    /// .sink(receiveCompletion: { print($0) }, receiveValue: { print($0.response.status) })
    /// ```
    public func uploadTaskPublisher(
        for request: HTTPRequest,
        fromFile fileURL: URL,
        options: RequestOptions = RequestOptions(),
        progress: ((UploadProgress) -> Void)? = nil
    ) -> DataTaskPublisher {
        let (source, length) = fileBody(fileURL, progress: progress)
        return DataTaskPublisher(task: streamedTask(request, source, contentLength: length, options: options),
                                 session: self)
    }

    /// Sends `request` with a body streamed from `bodyPublisher` and
    /// returns the response body and head: the async form of
    /// ``dataTaskPublisher(for:bodyPublisher:contentLength:options:progress:)``.
    /// Isolation, cancellation and errors are as for ``data(for:body:options:)``.
    ///
    /// ```swift
    /// let (_, response) = try await session.upload(for: request, fromPublisher: chunks, contentLength: total)
    /// print(response.status) // Prints: "201 Created"
    /// ```
    public nonisolated(nonsending) func upload<Body: Publisher>(
        for request: HTTPRequest,
        fromPublisher bodyPublisher: Body,
        contentLength: Int? = nil,
        options: RequestOptions = RequestOptions(),
        progress: ((UploadProgress) -> Void)? = nil
    ) async throws -> (Data, HTTPResponse) where Body.Output == Data {
        try await receive(dataTaskPublisher(for: request, bodyPublisher: bodyPublisher, contentLength: contentLength,
                                            options: options, progress: progress))
    }

    /// Sends `request` with a body streamed from the asynchronous sequence
    /// `bodySequence` and returns the response body and head, as
    /// AsyncHTTPClient's `HTTPClientRequest.Body.stream(_:length:)` sends
    /// one. The sequence is iterated in a task of its own, one element per
    /// chunk the session asks for (`AsyncSequence.uvPublisher`), so a
    /// slow server pauses it; a thrown error fails the upload with
    /// `UVURLError/Code/requestBodyFailed`. Otherwise as
    /// ``upload(for:fromPublisher:contentLength:options:progress:)``.
    ///
    /// ```swift
    /// let parts = AsyncStream<Data> { continuation in
    ///     for line in lines { continuation.yield(Data(line.utf8)) }
    ///     continuation.finish()
    /// }
    /// let (_, response) = try await session.upload(for: request, from: parts)
    /// ```
    public nonisolated(nonsending) func upload<Body: AsyncSequence>(
        for request: HTTPRequest,
        from bodySequence: Body,
        contentLength: Int? = nil,
        options: RequestOptions = RequestOptions(),
        progress: ((UploadProgress) -> Void)? = nil
    ) async throws -> (Data, HTTPResponse) where Body.Element == Data {
        try await upload(for: request, fromPublisher: bodySequence.uvPublisher, contentLength: contentLength,
                         options: options, progress: progress)
    }

    /// Sends `request` with the contents of the file at `fileURL` and
    /// returns the response body and head: `URLSession.upload(for:fromFile:)`.
    /// The file is read as ``uploadTaskPublisher(for:fromFile:options:progress:)``
    /// reads it.
    ///
    /// ```swift
    /// let request = HTTPRequest(method: .put, scheme: "http", authority: "127.0.0.1:8080", path: "/backup.tar")
    /// let (_, response) = try await session.upload(for: request, fromFile: URL(fileURLWithPath: "/tmp/backup.tar"))
    /// ```
    public nonisolated(nonsending) func upload(
        for request: HTTPRequest,
        fromFile fileURL: URL,
        options: RequestOptions = RequestOptions(),
        progress: ((UploadProgress) -> Void)? = nil
    ) async throws -> (Data, HTTPResponse) {
        try await receive(uploadTaskPublisher(for: request, fromFile: fileURL, options: options, progress: progress))
    }

    // MARK: Implementation

    private func streamedTask(_ request: HTTPRequest, _ source: RequestBodySource, contentLength: Int?,
                              options: RequestOptions) -> HTTPTaskRequest {
        taskRequest(request: request, streamedBody: source, contentLength: contentLength, options: options)
    }

    /// The file's body source and size; a file without a size makes a
    /// source whose tasks fail at once.
    private func fileBody(_ fileURL: URL, progress: ((UploadProgress) -> Void)?) -> (RequestBodySource, Int?) {
        let path = fileURL.path
        let publisher = FileBodyPublisher(path: path)
        switch FileBodyPublisher.size(of: path) {
        case .success(let size):
            return (RequestBodySource(publisher, progress: progress), size)
        case .failure(let error):
            return (RequestBodySource(publisher, progress: progress, setupError: error), nil)
        }
    }
}
