import HTTPTypes
import UVCombineCore
import UVCombineHTTPCore

/// A data task publisher in the engine's own types: one
/// `(data: Body, response: HTTPResponse)` per subscription, then
/// `.finished`, with every rule of the public
/// `UVURLSession.DataTaskPublisher` (which is this with `Body == Data`, at
/// the Foundation edge). The C API uses it with ``HTTPBody``, so its
/// fetches link no Foundation module.
///
/// ```swift
/// let publisher = session.bodyTaskPublisher(for: request, bytes: nil)
/// let cancellable = publisher.sink(receiveCompletion: { _ in }, receiveValue: { print($0.data.count) })
/// ```
///
/// Threading: as `DataTaskPublisher`: subscribe, request and cancel from
/// any thread; values arrive on the session's loop thread.
package struct BodyTaskPublisher<Body: HTTPResponseBodyConvertible>: Publisher, Sendable {
    /// The body and the response head.
    package typealias Output = (data: Body, response: HTTPResponse)
    /// Every failure is a ``UVURLError``.
    package typealias Failure = UVURLError

    @usableFromInline package let task: HTTPTaskRequest
    /// The session that performs the requests.
    package let session: UVURLSession

    package init(task: HTTPTaskRequest, session: UVURLSession) {
        self.task = task
        self.session = session
    }

    /// Attaches `subscriber`; the request starts on its first demand.
    @inlinable
    package func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let subscription = DataTaskSubscription<S, Body>(session: session, task: task, downstream: subscriber)
        subscriber.receive(subscription: subscription)
    }
}

extension UVURLSession {
    /// A publisher that sends `request` with `bytes` as its body and
    /// delivers the collected body as an ``HTTPBody``.
    package func bodyTaskPublisher(for request: HTTPRequest, bytes: [UInt8]?) -> BodyTaskPublisher<HTTPBody> {
        BodyTaskPublisher(task: taskRequest(request: request, bytes: bytes), session: self)
    }
}
