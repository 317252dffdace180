import Synchronization
import UVCombineCore
import UVCombineHTTPCore

extension UVURLSession {
    /// How far a streamed request body has gone: what
    /// `URLSessionTaskDelegate.urlSession(_:task:didSendBodyData:totalBytesSent:totalBytesExpectedToSend:)`
    /// reports, as a value.
    ///
    /// Reported to the `progress` handler of a streamed upload
    /// (``UVURLSession/dataTaskPublisher(for:bodyPublisher:contentLength:options:progress:)``,
    /// ``UVURLSession/uploadTaskPublisher(for:fromFile:options:progress:)``
    /// and their async forms) each time the kernel took the body bytes
    /// written so far (a write completed), on the session's loop thread.
    /// A redirect that sends the body again (307, 308) or a transparent
    /// retry starts again from 0.
    ///
    /// ```swift
    /// let upload = session.uploadTaskPublisher(for: request, fromFile: file) { progress in
    ///     print(progress.bytesSent, progress.totalBytesExpectedToSend ?? -1)
    /// }
    /// // Prints: "262144 1048576", "524288 1048576", ...
    /// ```
    ///
    /// Threading: a value type; `Sendable`.
    public struct UploadProgress: Sendable, Equatable, Hashable, CustomStringConvertible {
        /// Body bytes the kernel has taken so far (chunk framing and the
        /// request head not counted).
        public var bytesSent: Int64
        /// The body's announced length (`Content-Length`), or `nil` for a
        /// body sent with chunked transfer coding.
        public var totalBytesExpectedToSend: Int64?

        /// A progress report.
        ///
        /// ```swift
        /// let half = UVURLSession.UploadProgress(bytesSent: 512, totalBytesExpectedToSend: 1024)
        /// ```
        public init(bytesSent: Int64, totalBytesExpectedToSend: Int64?) {
            self.bytesSent = bytesSent
            self.totalBytesExpectedToSend = totalBytesExpectedToSend
        }

        /// `bytesSent / totalBytesExpectedToSend`, or `nil` without a
        /// length (1 for an empty body).
        public var fractionCompleted: Double? {
            guard let total = totalBytesExpectedToSend else { return nil }
            return total == 0 ? 1 : Double(bytesSent) / Double(total)
        }

        /// `512 of 1024 bytes sent`, or `512 bytes sent` without a length.
        public var description: String {
            if let total = totalBytesExpectedToSend { return "\(bytesSent) of \(total) bytes sent" }
            return "\(bytesSent) bytes sent"
        }
    }
}

/// A streamed request body as a publisher carries it: how to subscribe to
/// the body's publisher for one sending of the request, the length it
/// announces, and who hears of the progress. Made once per publisher
/// (with the closure that remembers the body publisher's type), so a
/// request costs one more object: its ``BodyStream``.
///
/// `@unchecked Sendable`: the body publisher and the progress handler are
/// used on the session's loop thread only (subscribed there, called
/// there), as `subscribe(on:)` subscribes a publisher made on another
/// thread; nothing here changes after `init`.
@usableFromInline
package final class RequestBodySource: @unchecked Sendable {
    /// Makes the subscriber for one sending of the body (not subscribed
    /// yet).
    package let makeStream: (SessionEngine) -> BodyStream
    /// Hears of the progress, on the loop thread.
    package let progress: ((UVURLSession.UploadProgress) -> Void)?
    /// The failure every task reports at once (a file that cannot be
    /// opened), or nil.
    package let setupError: UVURLError?

    package init<Body: Publisher>(_ body: Body, progress: ((UVURLSession.UploadProgress) -> Void)?,
                                   setupError: UVURLError? = nil) where Body.Output: RequestBodyChunk {
        makeStream = { engine in BodyStreamSubscriber(publisher: body, engine: engine) }
        self.progress = progress
        self.setupError = setupError
    }
}

/// One sending of a streamed request body: the subscriber to the body
/// publisher for one exchange. The engine asks for one chunk at a time
/// (``requestChunk()``) when the previous writes completed; chunks and the
/// completion go to the engine as operations (``SessionEngine/submit(_:)``:
/// at once on the loop thread, after the current turn; hopped there from
/// any other thread), which drops those of a stream that is no longer the
/// task's (cancelled, failed, or replaced by a retry or redirect).
///
/// Threading: `requestChunk`, `cancelUpstream` and `task` on the loop
/// thread; the `Subscriber` methods from whatever thread the body
/// publisher uses. The upstream subscription is kept under a lock, and
/// never called under it.
package class BodyStream: @unchecked Sendable {
    // @unchecked Sendable: `state` is behind its mutex; `task` is touched
    // on the loop thread only; `engine` is immutable.

    package let engine: SessionEngine

    private struct State {
        var subscription: (any Subscription)?
        /// A chunk was asked for before the subscription arrived.
        var wantsChunk = false
        var isCancelled = false
    }

    private let state = Locked(State())

    /// The task sending the body; nil once the stream ended. Loop thread.
    @exclusivity(unchecked) package final var task: SessionTask?

    package init(engine: SessionEngine) {
        self.engine = engine
    }

    /// Subscribes to the body publisher. Loop thread.
    package func subscribeUpstream() {
        trap("BodyStream.subscribeUpstream: subclasses subscribe")
    }

    /// Asks the body publisher for one chunk (`request(.max(1))`), now or
    /// when its subscription arrives. Loop thread.
    package final func requestChunk() {
        let subscription = state.withLock { state -> (any Subscription)? in
            guard !state.isCancelled else { return nil }
            guard let subscription = state.subscription else {
                state.wantsChunk = true
                return nil
            }
            return subscription
        }
        subscription?.request(.max(1))
    }

    /// Cancels the body publisher's subscription (the request ended or
    /// failed). Idempotent. Loop thread.
    package final func cancelUpstream() {
        let subscription = state.withLock { state -> (any Subscription)? in
            state.isCancelled = true
            let subscription = state.subscription
            state.subscription = nil
            return subscription
        }
        subscription?.cancel()
    }

    // MARK: For the subscriber (any thread)

    package final func accept(_ subscription: any Subscription) {
        enum Next { case cancel, request, nothing }
        let next = state.withLock { state -> Next in
            // A second subscription, or one after cancel: refused, as a
            // sink refuses it.
            if state.isCancelled || state.subscription != nil { return .cancel }
            state.subscription = subscription
            if state.wantsChunk {
                state.wantsChunk = false
                return .request
            }
            return .nothing
        }
        switch next {
        case .cancel: subscription.cancel()
        case .request: subscription.request(.max(1))
        case .nothing: break
        }
    }

    package final func deliver(_ chunk: any RequestBodyChunk) {
        engine.submit(.bodyChunk(self, chunk))
    }

    package final func complete(_ error: UVURLError?) {
        state.withLock { state in
            state.subscription = nil
            state.isCancelled = true
        }
        engine.submit(.bodyEnded(self, error))
    }
}

/// The ``BodyStream`` for a body publisher of type `Upstream`: one object
/// per sending of the body, nothing per chunk.
package final class BodyStreamSubscriber<Upstream: Publisher>: BodyStream, Subscriber, @unchecked Sendable
    where Upstream.Output: RequestBodyChunk {
    package typealias Input = Upstream.Output
    package typealias Failure = Upstream.Failure

    private let publisher: Upstream

    package init(publisher: Upstream, engine: SessionEngine) {
        self.publisher = publisher
        super.init(engine: engine)
    }

    package override func subscribeUpstream() {
        publisher.subscribe(self)
    }

    package func receive(subscription: any Subscription) {
        accept(subscription)
    }

    package func receive(_ input: Upstream.Output) -> Subscribers.Demand {
        deliver(input)
        // The engine asks for the next chunk when this one was written.
        return .none
    }

    package func receive(completion: Subscribers.Completion<Upstream.Failure>) {
        switch completion {
        case .finished:
            complete(nil)
        case .failure(let error):
            complete(UVURLError(.requestBodyFailed, detail: "the body publisher failed: \(error)"))
        }
    }
}

/// A chunk of a streamed request body: bytes the engine copies into its
/// write buffer. `Data` conforms at the Foundation edge (UVCombineHTTP),
/// `[UInt8]` here; either fits an existential's inline buffer, so passing
/// one as `any RequestBodyChunk` allocates nothing.
///
/// Threading: a value handed from the body publisher's thread to the loop.
package protocol RequestBodyChunk: Sendable {
    /// The chunk's length in bytes.
    var count: Int { get }
    /// Calls `body` with the chunk's bytes.
    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result
}

extension Array: RequestBodyChunk where Element == UInt8 {}
