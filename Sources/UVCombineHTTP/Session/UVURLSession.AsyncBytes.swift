import FoundationEssentials
import HTTPTypes
import Synchronization
import UVCombineCore
import UVCombineLoop
import UVCombineHTTPCore

extension UVURLSession {
    /// Sends `request` with `body` and returns, once the response head has
    /// arrived, the head and the body as an ``AsyncBytes`` sequence of
    /// parts: `URLSession.bytes(for:)` with parts in place of single bytes.
    ///
    /// The consumer drives the socket: each `next()` asks the session for
    /// one part, and while no `next()` is waiting the session does not
    /// read, so the kernel's buffers fill and TCP flow control slows the
    /// server down (a paused response holds at most the rest of one read
    /// buffer). While paused, only the total timeout runs.
    ///
    /// Any task; isolation, cancellation and errors as for
    /// ``data(for:body:options:)``: cancelling the task that awaits the
    /// head or a part cancels the request, and that call throws
    /// `CancellationError`. Dropping the sequence before its end cancels
    /// the request too (closing its connection).
    ///
    /// ```swift
    /// let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:8080", path: "/events")
    /// let (body, response) = try await session.bytes(for: request)
    /// print(response.status.code) // Prints: "200"
    /// for try await part in body {
    ///     handle(part) // a Data, never empty
    /// }
    /// ```
    public nonisolated(nonsending) func bytes(
        for request: HTTPRequest, body: Data? = nil, options: RequestOptions = RequestOptions()
    ) async throws -> (AsyncBytes, HTTPResponse) {
        try await stream(BytesPublisher(task: taskRequest(request: request, body: body, options: options),
                                        session: self))
    }

    /// Fetches `url` with a GET request and returns the response head and
    /// its body as an ``AsyncBytes`` sequence of parts; see
    /// ``bytes(for:body:options:)``.
    ///
    /// ```swift
    /// let (body, response) = try await session.bytes(for: URL(string: "http://127.0.0.1:8080/big")!)
    /// var count = 0
    /// for try await part in body { count += part.count }
    /// ```
    public nonisolated(nonsending) func bytes(
        for url: URL, options: RequestOptions = RequestOptions()
    ) async throws -> (AsyncBytes, HTTPResponse) {
        try await stream(BytesPublisher(task: taskRequest(url: url, options: options), session: self))
    }

    /// Subscribes to `publisher` and waits for the head.
    internal nonisolated(nonsending) func stream(_ publisher: BytesPublisher) async throws
        -> (AsyncBytes, HTTPResponse)
    {
        let storage = AsyncBytesStorage(loop: loop)
        publisher.subscribe(storage.receiver)
        // The stream starts with the head, or fails.
        guard case .head(let response)? = try await storage.receiver.nextPart(isolation: #isolation) else {
            throw UVURLError(.badServerResponse, detail: "the response ended before its head")
        }
        return (AsyncBytes(storage: storage, response: response), response)
    }

    /// The body of a response from ``UVURLSession/bytes(for:body:options:)``:
    /// an `AsyncSequence` of its parts, each a non-empty `Data`, in order.
    ///
    /// Unlike `URLSession.AsyncBytes`, whose elements are single bytes,
    /// the elements are the parts as they came off the socket (one per
    /// read, or per chunk of a chunked body): a byte at a time would cost
    /// an `await` per byte. Join them, or iterate each part's bytes.
    ///
    /// - Backpressure: one part is requested per `next()`; no `next()`, no
    ///   reading.
    /// - Single pass: the parts are delivered once; iterators made from
    ///   copies of one `AsyncBytes` share the stream. Two `next()` calls
    ///   waiting at once trap.
    /// - The end: `nil` after the last part; a failure is thrown once
    ///   (`UVURLError`, or `CancellationError` when the awaiting task was
    ///   cancelled), then `nil`.
    /// - Dropping every copy of the sequence (and its iterators) before the
    ///   end cancels the request.
    ///
    /// Threading: `Sendable`; iterate from any task. A consumer whose
    /// executor is the session's loop gets each part without a thread hop
    /// (`next(isolation:)` runs on the caller's isolation).
    ///
    /// ```swift
    /// let (body, _) = try await session.bytes(for: url)
    /// var received = Data()
    /// for try await part in body { received.append(part) }
    /// ```
    public struct AsyncBytes: AsyncSequence, Sendable {
        /// A part of the body.
        public typealias Element = Data
        /// A `UVURLError` or `CancellationError`.
        public typealias Failure = any Error

        internal let storage: AsyncBytesStorage

        /// The response head the body belongs to.
        public let response: HTTPResponse

        internal init(storage: AsyncBytesStorage, response: HTTPResponse) {
            self.storage = storage
            self.response = response
        }

        /// An iterator over the parts (shared with other iterators of this
        /// sequence: the stream is single-pass).
        ///
        /// ```swift
        /// var iterator = body.makeAsyncIterator()
        /// let first = try await iterator.next()
        /// ```
        public func makeAsyncIterator() -> Iterator {
            Iterator(storage: storage)
        }

        /// Reads the parts one `next()` at a time, each asking the session
        /// for one part.
        ///
        /// ```swift
        /// var iterator = body.makeAsyncIterator()
        /// while let part = try await iterator.next() { print(part.count) }
        /// ```
        public struct Iterator: AsyncIteratorProtocol {
            internal let storage: AsyncBytesStorage

            /// The next part, or `nil` at the end; asks the session for one
            /// part and waits for it, off any actor.
            ///
            /// ```swift
            /// let part = try await iterator.next()
            /// ```
            public mutating func next() async throws -> Data? {
                try await storage.receiver.nextBody(isolation: nil)
            }

            /// The next part, or `nil` at the end, waiting on `actor`'s
            /// executor (the caller's, for `for try await`): no hop when it
            /// is the session's loop.
            ///
            /// ```swift
            /// let part = try await iterator.next(isolation: #isolation)
            /// ```
            public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> Data? {
                try await storage.receiver.nextBody(isolation: actor)
            }
        }
    }
}

/// Owns an ``AsyncBytesReceiver`` for the ``UVURLSession/AsyncBytes`` that
/// share it: when the last copy goes, the request is cancelled (a no-op
/// after the end). The subscription holds the receiver, not this.
internal final class AsyncBytesStorage: Sendable {
    internal let receiver: AsyncBytesReceiver

    internal init(loop: UVLoop) {
        receiver = AsyncBytesReceiver(loop: loop)
    }

    deinit {
        receiver.cancel()
    }
}

/// The subscriber behind one `bytes(for:)` call: hands the parts to
/// `next()` calls, one unit of demand per call.
///
/// At most one `next()` waits; its continuation is resumed by the part,
/// the completion, or a cancel, whichever takes it first under the lock.
///
/// Threading: `next` from the consuming task, deliveries on the loop
/// thread, `cancel` from any thread, never blocking (see
/// ``cancelSubscription(_:on:)``). `@unchecked Sendable`: every mutable
/// field is inside the mutex.
internal final class AsyncBytesReceiver: Subscriber, @unchecked Sendable {
    internal typealias Input = UVURLSession.ResponsePart
    internal typealias Failure = UVURLError
    internal typealias Outcome = Result<UVURLSession.ResponsePart?, any Error>
    internal typealias Waiter = CheckedContinuation<Outcome, Never>

    private struct State {
        var subscription: (any Subscription)?
        /// The waiting `next()`.
        var waiter: Waiter?
        /// A `next()` waited before the subscription arrived.
        var requestOnSubscription = false
        /// A part no `next()` took yet (only if the upstream sent more
        /// than asked; never in practice).
        var pending: UVURLSession.ResponsePart?
        /// How the stream ended, until a `next()` reports it (then
        /// `.success(nil)` for good).
        var ending: Outcome?
    }

    private enum Step {
        case resume(Outcome)
        case request(any Subscription)
        case wait
    }

    private let state = Locked(State())
    private let loop: UVLoop

    internal init(loop: UVLoop) {
        self.loop = loop
    }

    /// The next body part (skipping the head, which ``nextPart`` returns
    /// to `bytes(for:)`), or nil at the end.
    internal func nextBody(isolation actor: isolated (any Actor)?) async throws -> Data? {
        while true {
            switch try await nextPart(isolation: actor) {
            case nil: return nil
            case .body(let data)?: return data
            case .head?: continue
            }
        }
    }

    /// Asks for one part and waits for it; task cancellation cancels the
    /// request.
    internal func nextPart(isolation actor: isolated (any Actor)?) async throws -> UVURLSession.ResponsePart? {
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation(isolation: actor) { (waiter: Waiter) in
                park(waiter)
            }
        } onCancel: {
            cancel()
        }
        return try outcome.get()
    }

    private func park(_ waiter: Waiter) {
        let step = state.withLock { state -> Step in
            if state.waiter != nil {
                violation("UVURLSession.AsyncBytes: next() called while another next() is waiting")
            }
            if let part = state.pending {
                state.pending = nil
                return .resume(.success(part))
            }
            if let ending = state.ending {
                state.ending = .success(nil)
                return .resume(ending)
            }
            state.waiter = waiter
            guard let subscription = state.subscription else {
                state.requestOnSubscription = true
                return .wait
            }
            return .request(subscription)
        }
        switch step {
        case .resume(let outcome): waiter.resume(returning: outcome)
        case .request(let subscription): subscription.request(.max(1))
        case .wait: break
        }
    }

    internal func receive(subscription: any Subscription) {
        let request = state.withLock { state -> Bool? in
            guard state.ending == nil, state.subscription == nil else { return nil }
            state.subscription = subscription
            defer { state.requestOnSubscription = false }
            return state.requestOnSubscription
        }
        switch request {
        case nil: subscription.cancel()
        case true?: subscription.request(.max(1))
        case false?: break
        }
    }

    internal func receive(_ input: UVURLSession.ResponsePart) -> Subscribers.Demand {
        let waiter = state.withLock { state -> Waiter? in
            guard let waiter = state.waiter else {
                state.pending = input
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: .success(input))
        return .none
    }

    internal func receive(completion: Subscribers.Completion<UVURLError>) {
        let outcome: Outcome
        switch completion {
        case .finished: outcome = .success(nil)
        case .failure(let error): outcome = .failure(error)
        }
        end(with: outcome, cancelling: false)
    }

    /// Cancels the request (on the loop); a waiting `next()` (or the next
    /// one) throws `CancellationError`. A no-op after the end. Any thread,
    /// never blocks.
    internal func cancel() {
        end(with: .failure(CancellationError()), cancelling: true)
    }

    private func end(with outcome: Outcome, cancelling: Bool) {
        let taken = state.withLock { state -> ((any Subscription)?, Waiter?) in
            guard state.ending == nil else { return (nil, nil) }
            let subscription = state.subscription
            state.subscription = nil
            if cancelling { state.pending = nil }
            if let waiter = state.waiter {
                state.waiter = nil
                state.ending = .success(nil)
                return (subscription, waiter)
            }
            state.ending = outcome
            return (subscription, nil)
        }
        if cancelling, let subscription = taken.0 {
            cancelSubscription(subscription, on: loop)
        }
        taken.1?.resume(returning: outcome)
    }
}
