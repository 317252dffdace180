import Synchronization
import UVCombineWebSocketCore
import UVCombineCore

extension UVWebSocketTask {
    /// Returns a publisher that, once subscribed, sends every message
    /// `messages` publishes (asking for the next once the previous one's
    /// frames were written: the upstream never runs ahead of the socket),
    /// and when `messages` finishes, closes with 1000 and completes when
    /// the close handshake ends.
    ///
    /// ```swift
    /// let done = task.sendPublisher(["a", "b"].publisher.map { .string($0) })
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { _ in }) // finished, after the close handshake
    /// ```
    public func sendPublisher<Upstream: Publisher>(_ messages: Upstream) -> SendPublisher<Upstream>
    where Upstream.Output == Message, Upstream.Failure == Never {
        SendPublisher(upstream: messages, task: self)
    }

    /// The publisher ``sendPublisher(_:)`` returns: no values; it finishes
    /// when the close handshake completed after the last message, or fails
    /// with the ``WebSocketError`` that prevented a send or the close.
    /// Cancelling it stops taking messages from upstream (the connection
    /// stays open).
    ///
    /// Threading: subscribe and cancel from any thread; the completion
    /// arrives on the loop thread.
    ///
    /// ```swift
    /// let sending = task.sendPublisher(Just(.string("bye")))
    /// sending.sink(receiveCompletion: { print($0) }, receiveValue: { _ in }) // finished
    /// ```
    public struct SendPublisher<Upstream: Publisher>: Publisher
    where Upstream.Output == Message, Upstream.Failure == Never {
        /// Nothing: the publisher only completes.
        public typealias Output = Never
        /// Why a send or the close failed.
        public typealias Failure = WebSocketError

        /// The messages to send.
        public let upstream: Upstream
        /// The task that sends them.
        public let task: UVWebSocketTask

        /// Subscribes `subscriber`, then `upstream`.
        ///
        /// ```swift
        /// task.sendPublisher(Just(.string("hi"))).subscribe(subscriber)
        /// ```
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Never, S.Failure == WebSocketError {
            let inner = SendSubscription<Upstream, S>(downstream: subscriber, task: task)
            subscriber.receive(subscription: inner)
            upstream.subscribe(inner)
        }
    }
}

/// Takes messages from upstream one at a time and sends them.
///
/// Threading: upstream may deliver on any thread; sends hop to the loop
/// thread in order; the downstream completion arrives on the loop thread.
internal final class SendSubscription<Upstream: Publisher, Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible
where Upstream.Output == UVWebSocketTask.Message, Upstream.Failure == Never, Downstream.Input == Never,
      Downstream.Failure == WebSocketError {
    typealias Input = UVWebSocketTask.Message
    typealias Failure = Never

    // @unchecked: the subscriber (not Sendable) lives only inside the
    // Mutex, which serialises every access to it.
    private struct State: @unchecked Sendable {
        var downstream: Downstream?
        var upstream: (any Subscription)?
        var isCancelled = false
    }

    private let state: Mutex<State>
    private let task: UVWebSocketTask

    init(downstream: Downstream, task: UVWebSocketTask) {
        state = Mutex(State(downstream: downstream))
        self.task = task
    }

    var description: String { "WebSocketSend" }

    // MARK: Subscription (downstream's side)

    func request(_ demand: Subscribers.Demand) {
        // Output is Never: demand changes nothing.
    }

    func cancel() {
        let upstream = state.withLock { state in
            defer {
                state.isCancelled = true
                state.downstream = nil
                state.upstream = nil
            }
            return state.upstream
        }
        upstream?.cancel()
    }

    // MARK: Subscriber (upstream's side)

    func receive(subscription: any Subscription) {
        let accepted = state.withLock { state in
            guard !state.isCancelled, state.upstream == nil else { return false }
            state.upstream = subscription
            return true
        }
        guard accepted else {
            subscription.cancel()
            return
        }
        task.resume()
        subscription.request(.max(1))
    }

    func receive(_ input: UVWebSocketTask.Message) -> Subscribers.Demand {
        task.sendFromPublisher(input) { [self] error in
            if let error {
                finish(error, cancelUpstream: true)
            } else if let upstream = state.withLock({ $0.isCancelled ? nil : $0.upstream }) {
                upstream.request(.max(1))
            }
        }
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {
        task.close(code: .normalClosure) { [self] error in
            finish(error, cancelUpstream: false)
        }
    }

    private func finish(_ error: WebSocketError?, cancelUpstream: Bool) {
        let (downstream, upstream) = state.withLock { state in
            defer {
                state.downstream = nil
                state.upstream = nil
                state.isCancelled = true
            }
            return (state.downstream, state.upstream)
        }
        if cancelUpstream { upstream?.cancel() }
        downstream?.receive(completion: error.map { .failure($0) } ?? .finished)
    }
}

