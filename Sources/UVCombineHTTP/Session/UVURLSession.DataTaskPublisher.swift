import FoundationEssentials
import HTTPTypes
import Synchronization
import UVCombineCore
import UVCombineHTTPCore

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
    ///   ``UVURLError``.
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
        /// Every failure is a ``UVURLError``.
        public typealias Failure = UVURLError

        @usableFromInline internal let task: HTTPTaskRequest

        /// The session that performs the requests.
        public let session: UVURLSession

        /// The request each subscription sends (after the URL was checked:
        /// its authority and path are what goes on the wire).
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
        /// let publisher = UVURLSession.DataTaskPublisher(request: request, session: session)
        /// ```
        public init(request: HTTPRequest, body: Data? = nil, session: UVURLSession) {
            self.init(task: session.taskRequest(request: request, body: body), session: session)
        }

        /// Attaches `subscriber`; the request starts on its first demand.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let subscription = DataTaskSubscription(session: session, task: task, downstream: subscriber)
            subscriber.receive(subscription: subscription)
        }
    }
}

/// One subscriber's data task.
///
/// The first `request` starts the task on the loop; the engine hands the
/// outcome to `deliver`, which claims completion under the gate, so a
/// cancel and a delivery cannot both win.
@usableFromInline
internal final class DataTaskSubscription<Downstream: Subscriber>: SessionTask, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == (data: Data, response: HTTPResponse), Downstream.Failure == UVURLError
{
    /// Guarded by the gate; released when the task ends, so no cycle
    /// outlives it. Unchecked exclusivity: the gate already serialises
    /// every access, and the run-time check cost about 150 instructions
    /// per request (callgrind, issue 17).
    @exclusivity(unchecked) @usableFromInline internal var downstream: Downstream?

    @inlinable
    internal init(session: UVURLSession, task: HTTPTaskRequest, downstream: Downstream) {
        self.downstream = downstream
        super.init(
            session: session,
            spec: task,
            isStreaming: false,
            deliverOutcome: { task, outcome in
                unsafeDowncast(task, to: DataTaskSubscription<Downstream>.self).deliver(outcome)
            },
            offerPart: { _, _ in .cancelled }
        )
    }

    /// Sends the outcome unless cancelled. Loop thread, under the gate.
    @inlinable
    internal func deliver(_ outcome: TaskOutcome) {
        guard claimCompletion(), let downstream else { return }
        self.downstream = nil
        switch outcome {
        case .value(let data, let response):
            _ = downstream.receive((data: data, response: response))
            downstream.receive(completion: .finished)
        case .failure(let error):
            downstream.receive(completion: .failure(error))
        case .finished:
            downstream.receive(completion: .finished)
        }
    }

    /// The first demand starts the request; later demand changes nothing
    /// (there is only one value).
    @usableFromInline
    internal func request(_ demand: Subscribers.Demand) {
        requestDemand(demand)
    }

    /// Sends nothing more downstream; a started request is cancelled on
    /// the loop. Waits for a delivery in flight on another thread.
    @usableFromInline
    internal func cancel() {
        var taken: Downstream?
        cancelSubscription {
            taken = downstream
            downstream = nil
        }
        // The subscriber is released here, outside the gate.
        _ = taken
    }

    @usableFromInline var description: String { "DataTaskPublisher" }
    @usableFromInline var customMirror: Mirror {
        Mirror(self, children: ["request": spec.request])
    }
    @usableFromInline var playgroundDescription: Any { description }
}
