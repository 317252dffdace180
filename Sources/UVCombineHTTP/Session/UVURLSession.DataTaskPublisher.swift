import FoundationEssentials
import HTTPTypes
import Synchronization
import UVCombineCore
import UVCombineHTTPCore
import UVCombineHTTPClient

extension UVURLSession {
    /// A publisher that delivers the result of one HTTP request per
    /// subscription: Foundation's `URLSession.DataTaskPublisher` on a loop.
    ///
    /// Semantics, as Combine's:
    /// - Nothing is sent on subscribe; the request starts on the first
    ///   demand (`sink` asks at once; a `share().makeConnectable()` waits
    ///   for `connect()`).
    /// - One `(data, response)` value, then `.finished`. HTTP 4xx and 5xx
    ///   responses are values; transport and protocol problems fail with a
    ///   `UVURLError`.
    /// - Each subscription is a new request, so `retry(_:)` re-issues it.
    /// - Cancelling sends nothing downstream. A request cancelled before any
    ///   byte of it was written leaves its connection pooled; cancelled
    ///   after, the connection is closed (the exchange cannot complete).
    ///
    /// Threading: subscribe, request and cancel from any thread; the value
    /// and the completion arrive on the session's loop thread. Once
    /// `cancel()` has returned, nothing more reaches the subscriber: a
    /// cancel from another thread waits for a delivery in flight. (So a
    /// subscriber must not block waiting for a thread that cancels it.)
    ///
    /// Cost: one object per subscription; on a reused keep-alive
    /// connection, the response's `Data` and `HTTPResponse` are the only
    /// other allocations.
    ///
    /// ```swift
    /// let cancellable = session.dataTaskPublisher(for: url)
    ///     .sink(receiveCompletion: { print("Received completion: \($0).") },
    ///           receiveValue: { print("Received data: \($0.data).") })
    /// // Prints: "Received data: 1256 bytes."
    /// //         "Received completion: finished."
    /// ```
    public struct DataTaskPublisher: Publisher, Sendable {
        /// The body and the response head.
        public typealias Output = (data: Data, response: HTTPResponse)
        /// Every failure is a `UVURLError`.
        public typealias Failure = UVURLError

        @usableFromInline internal let task: HTTPTaskRequest

        /// The session that performs the requests.
        public let session: UVURLSession

        /// The request each subscription sends (after the URL was checked:
        /// its authority and path are what goes on the wire).
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
        /// let publisher = UVURLSession.DataTaskPublisher(request: request, session: session)
        /// ```
        public init(request: HTTPRequest, body: Data? = nil, session: UVURLSession) {
            self.init(task: session.taskRequest(request: request, body: body), session: session)
        }

        /// Attaches `subscriber`; the request starts on its first demand.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let subscription = DataTaskSubscription<S, Data>(session: session, task: task, downstream: subscriber)
            subscriber.receive(subscription: subscription)
        }
    }
}

extension Data: HTTPResponseBodyConvertible {
    /// The engine's collected bytes as a `Data` that owns them: no copy.
    @inlinable
    package static func taking(_ body: ResponseBody) -> Data {
        guard let pointer = body.pointer, body.count > 0 else {
            body.free()
            return Data()
        }
        return Data(bytesNoCopy: pointer, count: body.count, deallocator: .free)
    }
}
