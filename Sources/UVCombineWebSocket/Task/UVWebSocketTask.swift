import UVCombineHTTP
import UVCombineWebSocketCore
import UVCombineHTTPCore
import FoundationEssentials
import HTTPTypes
import UVCombineWebSocketClient

/// A WebSocket connection (RFC 6455) made by a ``/UVCombineHTTP/UVURLSession``
/// on its loop, in the shape of Foundation's `URLSessionWebSocketTask`:
/// ``resume()``, ``send(_:completionHandler:)``, ``receive(completionHandler:)``,
/// ``sendPing(pongReceiveHandler:)``, ``cancel(with:reason:)``,
/// ``maximumMessageSize``, ``closeCode``, ``closeReason``; async forms;
/// and Combine forms: ``messages`` (no demand, no socket read) and
/// ``sendPublisher(_:)`` (messages from a publisher, then the close
/// handshake).
///
/// ```swift
/// let task = session.webSocketTask(with: URL(string: "ws://127.0.0.1:8080/echo")!)
/// task.resume()
/// task.send(.string("hello")) { error in if let error { print(error) } }
/// task.receive { result in
///     if case .success(.string(let text)) = result { print(text) } // hello
///     task.cancel(with: .normalClosure, reason: nil)
/// }
/// session.loop.run()
/// ```
///
/// What the task does by itself: answers pings, reassembles fragmented
/// messages (with pings between fragments), validates text as UTF-8 as
/// it arrives, offers permessage-deflate (``Options/compression``), and
/// fails the connection with the RFC's close code when the server breaks
/// the protocol (1002, 1007, 1009; docs/websocket.md lists each case).
///
/// Threading: every method and property may be used from any thread; the
/// work runs on the session's loop thread, and every completion handler
/// and publisher value arrives there. Calls from one thread take effect
/// in the order they were made.
public final class UVWebSocketTask: @unchecked Sendable, CustomStringConvertible {
    // @unchecked: `connection` is not Sendable, and is only touched on the
    // loop thread (every use goes through `onLoop`); everything else is
    // immutable or behind the status's Mutex.

    /// A message: text or binary, as `URLSessionWebSocketTask.Message`.
    ///
    /// ```swift
    /// task.send(.data(Data([1, 2, 3]))) { _ in }
    /// ```
    public enum Message: Sendable, Hashable {
        /// A binary message.
        case data(Data)
        /// A text message.
        case string(String)
    }

    /// Where the task is, as `URLSessionTask.State`.
    ///
    /// ```swift
    /// if task.state == .completed { print(task.closeCode) }
    /// ```
    public enum State: Sendable, Hashable {
        /// Not resumed yet.
        case suspended
        /// Connecting or connected.
        case running
        /// Closed, cancelled or failed.
        case completed
    }

    /// The session whose loop runs the task.
    public var session: UVURLSession { client.session }
    /// The options in force.
    public let options: Options
    /// The byte-based task (UVCombineWebSocketClient) this one converts for.
    internal let client: WebSocketClientTask
    private var status: WebSocketTaskStatus { client.status }

    internal init(session: UVURLSession, target: Result<HTTPRequestTarget, UVURLError>, extraFields: HTTPFields,
                  subprotocols: [String], options: Options) {
        self.options = options
        client = WebSocketClientTask(session: session, target: target, extraFields: extraFields,
                                     subprotocols: subprotocols, options: options.clientOptions)
    }

    /// Connects and performs the opening handshake. Idempotent.
    ///
    /// ```swift
    /// task.resume()
    /// ```
    public func resume() {
        client.resume()
    }

    /// Sends `message` (fragmented per ``Options/maximumFrameSize``,
    /// compressed when permessage-deflate was agreed). A send before the
    /// connection opened waits for it. `completionHandler` runs on the loop
    /// thread once the kernel took the frames, with nil, or with the error
    /// that prevented it.
    ///
    /// ```swift
    /// task.send(.string("hi")) { error in print(error == nil) }
    /// ```
    public func send(_ message: Message, completionHandler: @escaping @Sendable (WebSocketError?) -> Void) {
        client.send(message.clientMessage, completion: completionHandler)
    }

    /// Calls `completionHandler` with the next message, on the loop thread.
    /// Reading the socket happens only while a receive (or the messages
    /// publisher's demand) waits. After the close, it fails with the
    /// ``WebSocketError`` the task ended with.
    ///
    /// ```swift
    /// task.receive { result in print(result) }
    /// ```
    ///
    /// Each message is copied into the `Data` or `String` the
    /// ``Message`` holds (two allocations for `Data` beyond 14 bytes, one
    /// for a `String` beyond 15); ``receiveBorrowed(_:)`` lends the bytes
    /// instead and allocates nothing.
    public func receive(completionHandler: @escaping @Sendable (Result<Message, WebSocketError>) -> Void) {
        client.receive { result in completionHandler(result.map(Message.init(copying:))) }
    }

    /// Calls `handler` with the next message lent where the connection
    /// holds it (the read buffer for a message that came in one frame,
    /// else the reader's message buffer): no copy and no allocation per
    /// message (WebSocketBenchmarks' `receive16B.borrowed`), as long as
    /// `handler` captures at most one object (a closure capturing more
    /// allocates its context) and the call comes from the loop thread
    /// (from another thread it is posted, which allocates). The bytes are
    /// valid during the call only: copy what must outlive it. Demand and
    /// failures work as in ``receive(completionHandler:)``.
    ///
    /// ```swift
    /// final class Counter: @unchecked Sendable {   // touched on the loop thread only
    ///     var bytes = 0
    ///     func next(_ task: UVWebSocketTask) {
    ///         task.receiveBorrowed { [self] result in
    ///             guard case .success(let message) = result else { return }
    ///             bytes += message.bytes.count
    ///             next(task)
    ///         }
    ///     }
    /// }
    /// ```
    public func receiveBorrowed(_ handler: @escaping @Sendable (Result<WebSocketBorrowedMessage, WebSocketError>) -> Void) {
        client.receive(handler)
    }

    /// Sends a ping; `pongReceiveHandler` runs with nil when its pong
    /// arrives, or with the error when the connection closes first.
    ///
    /// ```swift
    /// task.sendPing { error in print(error == nil ? "pong" : "no pong") }
    /// ```
    public func sendPing(pongReceiveHandler: @escaping @Sendable (WebSocketError?) -> Void) {
        client.sendPing(pongReceiveHandler)
    }

    /// Starts the close handshake with `closeCode` and `reason` (cut to
    /// 123 bytes); the connection closes when the server answers, or after
    /// ``Options/closeTimeout``. Before the connection opened it just ends
    /// the task. Messages the server sends before its close frame still go to
    /// pending receives; after the close, receives fail with
    /// ``WebSocketError/Reason/closed``.
    ///
    /// ```swift
    /// task.cancel(with: .goingAway, reason: Data("bye".utf8))
    /// ```
    public func cancel(with closeCode: WebSocketCloseCode, reason: Data?) {
        let bytes = reason.map { Array($0) } ?? []
        client.close(code: closeCode, reason: bytes, completion: nil)
    }

    /// Ends the task with 1001 (going away), as `URLSessionTask.cancel()`.
    ///
    /// ```swift
    /// task.cancel()
    /// ```
    public func cancel() {
        cancel(with: .goingAway, reason: nil)
    }

    /// The longest message accepted, in bytes (after inflating); a longer
    /// one fails the connection with 1009. Default 1 MiB, as Foundation.
    ///
    /// ```swift
    /// task.maximumMessageSize = 16 << 20
    /// ```
    public var maximumMessageSize: Int {
        get { status.maximumMessageSize }
        set {
            precondition(newValue > 0, "UVWebSocketTask: maximumMessageSize must be positive")
            client.setMaximumMessageSize(newValue)
        }
    }

    /// The close code: the server's once its close frame arrived, the
    /// code the task failed the connection with, 1006 after an abrupt end;
    /// ``WebSocketCloseCode/invalid`` while open.
    public var closeCode: WebSocketCloseCode { status.closeCode }

    /// The server's close reason, if it gave one.
    public var closeReason: Data? { status.snapshot.closeReason.map { Data($0) } }

    /// Where the task is.
    public var state: State {
        switch status.snapshot.state {
        case .suspended: .suspended
        case .running: .running
        case .completed: .completed
        }
    }

    /// The server's `101 Switching Protocols` response, once open.
    public var response: HTTPResponse? { status.snapshot.response }

    /// The subprotocol the server chose, if any.
    public var subprotocol: String? { status.snapshot.subprotocol }

    /// The permessage-deflate parameters agreed, or nil when messages
    /// travel uncompressed.
    public var compression: PerMessageDeflate.Parameters? { status.snapshot.compression }

    /// `UVWebSocketTask`.
    public var description: String { "UVWebSocketTask" }

    // MARK: For the publishers

    internal func attach(_ sink: any WebSocketMessageSink) {
        client.attach(sink)
    }

    internal func detach(_ sink: any WebSocketMessageSink) {
        client.detach(sink)
    }

    internal func addDemand(_ demand: Int, for sink: any WebSocketMessageSink) {
        client.addDemand(demand, for: sink)
    }

    /// ``send(_:completionHandler:)`` for the send publisher, whose
    /// completion need not be `@Sendable` (it runs on the loop thread).
    internal func sendFromPublisher(_ message: Message, completion: @escaping (WebSocketError?) -> Void) {
        client.send(message.clientMessage, completion: completion)
    }

    internal func close(code: WebSocketCloseCode, completion: @escaping (WebSocketError?) -> Void) {
        client.close(code: code, reason: [], afterOpening: true, completion: completion)
    }
}
