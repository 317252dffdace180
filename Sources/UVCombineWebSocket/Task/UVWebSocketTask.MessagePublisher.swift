import Synchronization
import UVCombineWebSocketCore
import UVCombineCore
import UVCombineWebSocketClient

extension UVWebSocketTask {
    /// A publisher of the task's incoming messages, driven by demand: the
    /// socket is read only while the subscriber has demand, so a slow
    /// subscriber stops the reads and TCP flow control throttles the
    /// server. The first demand resumes the task if nobody did; the end is
    /// delivered even without demand.
    ///
    /// It finishes when the close handshake completes (whoever started
    /// it), and fails with the ``WebSocketError`` that ended the task
    /// otherwise. One subscriber at a time: a second one fails with
    /// ``WebSocketError/Reason/cancelled``.
    ///
    /// ```swift
    /// let cancellable = task.messages
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    public var messages: MessagePublisher { MessagePublisher(task: self) }

    /// The publisher ``messages`` returns.
    ///
    /// Threading: subscribe, request and cancel from any thread; values and
    /// the completion arrive on the loop thread.
    ///
    /// ```swift
    /// let publisher: UVWebSocketTask.MessagePublisher = task.messages
    /// publisher.compactMap { if case .string(let text) = $0 { text } else { nil } }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    public struct MessagePublisher: Publisher, Sendable {
        /// A message.
        public typealias Output = Message
        /// What ended the task, when it did not end with a close handshake.
        public typealias Failure = WebSocketError

        /// The task whose messages are published.
        public let task: UVWebSocketTask

        /// Subscribes `subscriber`; nothing is read until it requests.
        ///
        /// ```swift
        /// task.messages.subscribe(subscriber)
        /// ```
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Message, S.Failure == WebSocketError {
            let subscription = MessageSubscription(subscriber: subscriber, task: task)
            // Attached first, so that demand requested inside
            // `receive(subscription:)` finds it; an end reported before the
            // subscriber has its subscription waits for it.
            task.attach(subscription)
            subscriber.receive(subscription: subscription)
            subscription.subscriberHasSubscription()
        }
    }
}

/// One subscriber of ``UVWebSocketTask/MessagePublisher``.
///
/// Threading: `request` and `cancel` from any thread (they hop to the
/// loop); deliveries on the loop thread.
internal final class MessageSubscription<Downstream: Subscriber>: Subscription, WebSocketMessageSink, CustomStringConvertible
where Downstream.Input == UVWebSocketTask.Message, Downstream.Failure == WebSocketError {
    // @unchecked: the subscriber (not Sendable) lives only inside the
    // Mutex, which serialises every access to it.
    private struct State: @unchecked Sendable {
        var downstream: Downstream?
        /// The downstream received its subscription.
        var hasSubscription = false
        /// The end, when it came before that.
        var pendingEnd: WebSocketError??
    }

    private let state: Mutex<State>
    private let task: UVWebSocketTask

    init(subscriber: Downstream, task: UVWebSocketTask) {
        state = Mutex(State(downstream: subscriber))
        self.task = task
    }

    var description: String { "WebSocketMessages" }

    func request(_ demand: Subscribers.Demand) {
        precondition(demand > .none, "UVWebSocketTask.MessagePublisher: demand must be greater than zero")
        guard state.withLock({ $0.downstream != nil }) else { return }
        task.addDemand(demand.max ?? Int.max, for: self)
    }

    func cancel() {
        let wasActive = state.withLock { state in
            defer { state.downstream = nil }
            return state.downstream != nil
        }
        if wasActive { task.detach(self) }
    }

    // MARK: WebSocketMessageSink (loop thread)

    func receive(_ message: WebSocketBorrowedMessage) -> Int {
        guard let downstream = state.withLock({ $0.downstream }) else { return 0 }
        let more = downstream.receive(UVWebSocketTask.Message(copying: message))
        return more.max ?? Int.max
    }

    func finish(_ error: WebSocketError?) {
        let downstream = state.withLock { state -> Downstream? in
            guard state.hasSubscription else {
                state.pendingEnd = .some(error)
                return nil
            }
            defer { state.downstream = nil }
            return state.downstream
        }
        downstream?.receive(completion: error.map { .failure($0) } ?? .finished)
    }

    /// Delivers an end that came before the subscriber had its subscription.
    func subscriberHasSubscription() {
        let (downstream, end) = state.withLock { state -> (Downstream?, WebSocketError??) in
            state.hasSubscription = true
            guard let end = state.pendingEnd else { return (nil, nil) }
            defer { state.downstream = nil }
            return (state.downstream, end)
        }
        if let downstream, let end {
            downstream.receive(completion: end.map { .failure($0) } ?? .finished)
        }
    }
}
