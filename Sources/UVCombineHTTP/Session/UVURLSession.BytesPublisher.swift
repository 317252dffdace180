import FoundationEssentials
import HTTPTypes
import UVCombineCore
import UVCombineHTTPCore
import UVCombineHTTPClient

extension UVURLSession {
    /// A publisher that performs one HTTP request per subscription and
    /// streams the response: ``ResponsePart/head(_:)`` first, then
    /// ``ResponsePart/body(_:)`` parts, then `.finished`.
    ///
    /// The subscriber's demand drives the socket: each part takes one unit
    /// of demand, and while the subscriber has none the session stops
    /// reading, so the kernel's buffers fill and TCP flow control slows the
    /// server down. A paused response holds at most the rest of one read
    /// buffer. While paused, the idle read timeout does not run (the total
    /// timeout does).
    ///
    /// Everything else is as for ``DataTaskPublisher``: the request starts on
    /// the first demand; each subscription is a new request; 4xx and 5xx
    /// are responses, not failures; failures are `UVURLError`; values
    /// arrive on the loop thread; a cancel from any thread is strict.
    ///
    /// Cost: one `Data` per body part (the bytes are copied out of the
    /// reused read buffer once).
    ///
    /// ```swift
    /// let download = session.bytesPublisher(for: url)
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { part in
    ///         if case .body(let chunk) = part { received += chunk.count }
    ///     })
    /// ```
    public struct BytesPublisher: Publisher, Sendable {
        /// The head, then body parts.
        public typealias Output = ResponsePart
        /// Every failure is a `UVURLError`.
        public typealias Failure = UVURLError

        @usableFromInline internal let task: HTTPTaskRequest

        /// The session that performs the requests.
        public let session: UVURLSession

        /// The request each subscription sends.
        public var request: HTTPRequest { task.request }

        /// The request body, if any.
        public var body: Data? { task.body.map { Data($0) } }

        package init(task: HTTPTaskRequest, session: UVURLSession) {
            self.task = task
            self.session = session
        }

        /// Creates a publisher that sends `request` with `body` on `session`.
        ///
        /// ```swift
        /// let parts = UVURLSession.BytesPublisher(request: request, session: session)
        /// ```
        public init(request: HTTPRequest, body: Data? = nil, session: UVURLSession) {
            self.init(task: session.taskRequest(request: request, body: body), session: session)
        }

        /// Attaches `subscriber`; the request starts on its first demand.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let subscription = BytesSubscription<S, ResponsePart>(session: session, task: task, downstream: subscriber)
            subscriber.receive(subscription: subscription)
        }
    }
}

extension UVURLSession.ResponsePart: HTTPStreamedPartConvertible {
    /// The engine's part with its bytes copied into a `Data`: the one copy
    /// a streamed part costs.
    @inlinable
    package static func copying(_ part: StreamedPart) -> UVURLSession.ResponsePart {
        switch part {
        case .head(let response): .head(response)
        case .body(let bytes): .body(Data(bytes))
        }
    }
}
