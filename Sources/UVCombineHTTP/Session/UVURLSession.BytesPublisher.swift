import FoundationEssentials
import HTTPTypes
import UVCombineCore
import UVCombineHTTPCore

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
    /// are responses, not failures; failures are ``UVURLError``; values
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
        /// Every failure is a ``UVURLError``.
        public typealias Failure = UVURLError

        @usableFromInline internal let task: HTTPTaskRequest

        /// The session that performs the requests.
        public let session: UVURLSession

        /// The request each subscription sends.
        public var request: HTTPRequest { task.request }

        /// The request body, if any.
        public var body: Data? { task.body }

        internal init(task: HTTPTaskRequest, session: UVURLSession) {
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
            let subscription = BytesSubscription(session: session, task: task, downstream: subscriber)
            subscriber.receive(subscription: subscription)
        }
    }
}

/// One subscriber's streaming task.
///
/// Each part claims one unit of demand under the gate and goes out after
/// the claim; without demand the part stays with the engine, which stops
/// reading until `request` resumes it.
@usableFromInline
internal final class BytesSubscription<Downstream: Subscriber>: SessionTask, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == UVURLSession.ResponsePart, Downstream.Failure == UVURLError
{
    /// Guarded by the gate; released when the task ends.
    // Unchecked exclusivity: as DataTaskSubscription's, under the gate.
    @exclusivity(unchecked) @usableFromInline internal var downstream: Downstream?

    @inlinable
    internal init(session: UVURLSession, task: HTTPTaskRequest, downstream: Downstream) {
        self.downstream = downstream
        super.init(
            session: session,
            spec: task,
            isStreaming: true,
            deliverOutcome: { task, outcome in
                unsafeDowncast(task, to: BytesSubscription<Downstream>.self).deliver(outcome)
            },
            offerPart: { task, part in
                unsafeDowncast(task, to: BytesSubscription<Downstream>.self).offer(part)
            }
        )
    }

    /// Delivers `part` if the subscriber has demand. Loop thread.
    @inlinable
    internal func offer(_ part: StreamedPart) -> PartOffer {
        var result = PartOffer.cancelled
        withGate {
            result = claimPart()
            guard case .delivered = result, let downstream else { return }
            // The one copy of a body part: out of the engine's buffer.
            switch part {
            case .head(let response): addDemand(downstream.receive(.head(response)))
            case .body(let bytes): addDemand(downstream.receive(.body(Data(bytes))))
            }
        }
        return result
    }

    /// Sends the completion unless cancelled. Loop thread, under the gate.
    @inlinable
    internal func deliver(_ outcome: TaskOutcome) {
        guard claimCompletion(), let downstream else { return }
        self.downstream = nil
        switch outcome {
        case .finished, .value:
            downstream.receive(completion: .finished)
        case .failure(let error):
            downstream.receive(completion: .failure(error))
        }
    }

    /// Adds demand; the first starts the request, and demand after a
    /// pause resumes reading.
    @usableFromInline
    internal func request(_ demand: Subscribers.Demand) {
        requestDemand(demand)
    }

    /// Sends nothing more downstream; a started request is cancelled on
    /// the loop (closing its connection). Waits for a delivery in flight
    /// on another thread.
    @usableFromInline
    internal func cancel() {
        var taken: Downstream?
        cancelSubscription {
            taken = downstream
            downstream = nil
        }
        _ = taken
    }

    @usableFromInline var description: String { "BytesPublisher" }
    @usableFromInline var customMirror: Mirror {
        Mirror(self, children: ["request": spec.request, "demand": control.withLock { $0.demand }])
    }
    @usableFromInline var playgroundDescription: Any { description }
}
