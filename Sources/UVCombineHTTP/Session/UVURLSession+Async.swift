import FoundationEssentials
import HTTPTypes
import Synchronization
import UVCombineCore
import UVCombineLoop
import UVCombineHTTPCore

/// The async/await API: `URLSession`'s `data(for:)`, `upload(for:from:)`,
/// `bytes(for:)` and `download(for:)` on a loop.
///
/// Each call is one data task of the session, built on the same engine as
/// the publishers: it runs on the session's loop (its connections, pool
/// and deadlines are the publishers'), and may be awaited from any task.
///
/// - Isolation: the functions are `nonisolated(nonsending)`: they run on
///   the caller's executor, so a caller on the loop (an actor whose
///   executor is the loop, or a task with the loop as its executor
///   preference) starts the request on the loop thread and resumes there,
///   with no thread hop. (The Swift runtime may still pass the job once
///   through the loop's own queue at the first `await`, on the same
///   thread, when it changes isolation.) From anywhere else the request
///   hops to the loop and the answer hops back, as with the publishers.
/// - Cancellation: cancelling the awaiting task cancels the request (the
///   connection is closed if the request was on the wire; the pool serves
///   the next request) and the call throws `CancellationError`.
/// - Errors: a `UVURLError` for everything the publishers fail with
///   (timeouts, connection and protocol errors); HTTP 4xx and 5xx are
///   responses, not errors.
/// - The loop must be running (`UVLoopThread`, or `loop.run()` on its
///   thread) for the call to finish.
extension UVURLSession {
    /// Fetches `url` with a GET request and returns the whole body and
    /// the response head.
    ///
    /// Any task; see the extension's notes on isolation, cancellation and
    /// errors.
    ///
    /// ```swift
    /// let (data, response) = try await session.data(for: URL(string: "http://127.0.0.1:8080/user")!)
    /// guard response.status == .ok else { throw Failure.status(response.status) }
    /// let user = try JSONDecoder().decode(User.self, from: data)
    /// ```
    public nonisolated(nonsending) func data(
        for url: URL, options: RequestOptions = RequestOptions()
    ) async throws -> (Data, HTTPResponse) {
        try await receive(DataTaskPublisher(task: taskRequest(url: url, options: options), session: self))
    }

    /// Sends `request` with `body` and returns the whole response body and
    /// head. `options` override the session's deadlines for this request.
    ///
    /// Any task; see the extension's notes on isolation, cancellation and
    /// errors.
    ///
    /// ```swift
    /// var request = HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1:8080", path: "/items")
    /// request.headerFields[.contentType] = "application/json"
    /// let (data, response) = try await session.data(
    ///     for: request, body: Data(#"{"name":"a"}"#.utf8),
    ///     options: .init(totalTimeout: .seconds(5)))
    /// ```
    public nonisolated(nonsending) func data(
        for request: HTTPRequest, body: Data? = nil, options: RequestOptions = RequestOptions()
    ) async throws -> (Data, HTTPResponse) {
        try await receive(DataTaskPublisher(task: taskRequest(request: request, body: body, options: options),
                                            session: self))
    }

    /// Sends `request` with `bodyData` as its body and returns the
    /// response body and head: `URLSession.upload(for:from:)`, the same as
    /// ``data(for:body:options:)`` with a body.
    ///
    /// ```swift
    /// let request = HTTPRequest(method: .put, scheme: "http", authority: "127.0.0.1:8080", path: "/files/a")
    /// let (_, response) = try await session.upload(for: request, from: contents)
    /// print(response.status) // Prints: "201 Created"
    /// ```
    public nonisolated(nonsending) func upload(
        for request: HTTPRequest, from bodyData: Data, options: RequestOptions = RequestOptions()
    ) async throws -> (Data, HTTPResponse) {
        try await data(for: request, body: bodyData, options: options)
    }

    /// Fetches `url` with a GET request and writes the body to `fileURL`
    /// as it arrives; returns the response head once the body is written.
    /// See ``download(for:body:to:options:)``.
    ///
    /// ```swift
    /// let response = try await session.download(for: url, to: URL(fileURLWithPath: "/tmp/big.bin"))
    /// ```
    public nonisolated(nonsending) func download(
        for url: URL, to fileURL: URL, options: RequestOptions = RequestOptions()
    ) async throws -> HTTPResponse {
        try await download(BytesPublisher(task: taskRequest(url: url, options: options), session: self),
                           to: fileURL)
    }

    /// Sends `request` and writes the response body to `fileURL` as it
    /// arrives, one part at a time (never the whole body in memory; the
    /// socket pauses while a part is being written); returns the response
    /// head once the body is written and the file closed.
    ///
    /// The file is created (or truncated) once the response head arrives,
    /// whatever the status (as curl's `-o`: a 404's body is written too).
    /// When the request fails, is cancelled, or a write fails, the partial
    /// file is removed and the error thrown: a `UVURLError`,
    /// `CancellationError`, or the file system's error (Foundation's
    /// `CocoaError`) when the file cannot be created or written.
    ///
    /// The writes are blocking `write(2)` calls on the caller's executor:
    /// a caller on the loop holds the loop for each part's write (one read
    /// buffer's worth, to the page cache).
    ///
    /// ```swift
    /// let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:8080", path: "/big.bin")
    /// let response = try await session.download(for: request, to: URL(fileURLWithPath: "/tmp/big.bin"))
    /// print(response.status.code) // Prints: "200"
    /// ```
    public nonisolated(nonsending) func download(
        for request: HTTPRequest, body: Data? = nil, to fileURL: URL, options: RequestOptions = RequestOptions()
    ) async throws -> HTTPResponse {
        try await download(
            BytesPublisher(task: taskRequest(request: request, body: body, options: options), session: self),
            to: fileURL)
    }

    // MARK: Implementation

    /// Runs one data task to its outcome.
    internal nonisolated(nonsending) func receive(_ publisher: DataTaskPublisher) async throws -> (Data, HTTPResponse) {
        let receiver = AsyncDataReceiver(loop: loop)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                receiver.start(continuation, publisher: publisher)
            }
        } onCancel: {
            receiver.cancel()
        }
    }

    /// Streams `publisher`'s response into `fileURL`.
    private nonisolated(nonsending) func download(_ publisher: BytesPublisher, to fileURL: URL) async throws
        -> HTTPResponse
    {
        let (bytes, response) = try await stream(publisher)
        let file = try DownloadFile(creatingAt: fileURL.path)
        do {
            for try await part in bytes {
                try file.append(part)
            }
            try file.synchronize()
            file.finish()
        } catch {
            try? FileManager.default.removeItem(at: fileURL)
            throw error
        }
        return response
    }
}

/// The subscriber behind one `data(for:)` call: it parks the caller's
/// continuation, starts the data task, and resumes the continuation with
/// the value or the failure; `cancel()` (task cancellation) cancels the
/// data task and resumes it with `CancellationError`.
///
/// Whichever of delivery and cancel takes the continuation first under
/// the lock resumes it; the other finds nothing to resume.
///
/// Threading: `start` on the caller's thread, deliveries on the loop
/// thread, `cancel` on any thread, never blocking (see
/// ``cancelSubscription(_:on:)``). `@unchecked Sendable`: every mutable
/// field is inside the mutex.
internal final class AsyncDataReceiver: Subscriber, @unchecked Sendable {
    internal typealias Input = (data: Data, response: HTTPResponse)
    internal typealias Failure = UVURLError
    internal typealias Continuation = CheckedContinuation<(Data, HTTPResponse), any Error>

    private struct State {
        var subscription: (any Subscription)?
        var continuation: Continuation?
        var isCancelled = false
    }

    private let state = Locked(State())
    private let loop: UVLoop

    internal init(loop: UVLoop) {
        self.loop = loop
    }

    /// Parks `continuation` and subscribes to `publisher` (which starts
    /// the request on its demand), unless already cancelled.
    internal func start(_ continuation: Continuation, publisher: UVURLSession.DataTaskPublisher) {
        let cancelled = state.withLock { state -> Bool in
            if state.isCancelled { return true }
            state.continuation = continuation
            return false
        }
        if cancelled {
            continuation.resume(throwing: CancellationError())
            return
        }
        publisher.subscribe(self)
    }

    internal func receive(subscription: any Subscription) {
        let accepted = state.withLock { state -> Bool in
            guard !state.isCancelled, state.continuation != nil else { return false }
            state.subscription = subscription
            return true
        }
        if accepted {
            subscription.request(.max(1))
        } else {
            subscription.cancel()
        }
    }

    internal func receive(_ input: Input) -> Subscribers.Demand {
        resume(with: .success((input.data, input.response)))
        return .none
    }

    internal func receive(completion: Subscribers.Completion<UVURLError>) {
        switch completion {
        case .finished:
            // After the value (which already resumed): nothing to do. A
            // data task never finishes without one; if it did, the caller
            // must not wait forever.
            resume(with: .failure(UVURLError(.badServerResponse, detail: "the data task finished without a response")))
        case .failure(let error):
            resume(with: .failure(error))
        }
    }

    /// Task cancellation: throws `CancellationError` from the waiting call
    /// at once and cancels the data task on the loop. Any thread, never
    /// blocks; idempotent.
    internal func cancel() {
        let taken = state.withLock { state -> ((any Subscription)?, Continuation?) in
            state.isCancelled = true
            let taken = (state.subscription, state.continuation)
            state.subscription = nil
            state.continuation = nil
            return taken
        }
        if let subscription = taken.0 { cancelSubscription(subscription, on: loop) }
        taken.1?.resume(throwing: CancellationError())
    }

    private func resume(with result: Result<(Data, HTTPResponse), any Error>) {
        let continuation = state.withLock { state -> Continuation? in
            let continuation = state.continuation
            state.continuation = nil
            state.subscription = nil
            return continuation
        }
        continuation?.resume(with: result)
    }
}

/// Cancels `subscription` without blocking the calling thread: at once on
/// the loop thread, otherwise from the loop.
///
/// A task's cancellation handlers run while the runtime holds the task's
/// status lock, and a subscription's cancel from another thread waits for
/// a delivery in flight (strict cancel); that delivery resumes the same
/// task's continuation, which takes the status lock: a deadlock. On the
/// loop thread the cancel never waits (deliveries happen there), so the
/// cancel goes there; the waiting call has already been resumed with
/// `CancellationError` and a late delivery finds nobody waiting.
internal func cancelSubscription(_ subscription: any Subscription, on loop: UVLoop) {
    if loop.isInLoop {
        subscription.cancel()
    } else {
        let box = UncheckedSendable(subscription)
        loop.schedule { box.value.cancel() }
    }
}
