import HTTPTypes
import UVCombineHTTPClient
import UVCombineHTTPCore
import UVCombineWebSocketCore

/// A WebSocket task in bytes, with no Foundation module: the
/// ``WebSocketConnection`` on a session's loop, and the
/// ``WebSocketTaskStatus`` its getters read. `UVWebSocketTask` wraps one
/// (converting `Data` and `URL` at its edge); the C API drives one
/// directly.
///
/// Threading: every method from any thread; the work runs on the
/// session's loop thread (inline when called there, else posted, so calls
/// from one thread keep their order), and every completion and sink call
/// arrives there.
///
/// ```swift
/// let task = WebSocketClientTask(session: session, target: WebSocketTarget.parse("ws://127.0.0.1:8080/"),
///                                extraFields: [:], subprotocols: [], options: WebSocketClientOptions())
/// task.resume()
/// task.send(.text("hi"), completion: nil)
/// ```
package final class WebSocketClientTask: @unchecked Sendable {
    // @unchecked: `connection` is not Sendable, and is only touched on the
    // loop thread (every use goes through `onLoop`); everything else is
    // immutable or behind the status's Mutex.

    /// The session whose loop runs the task.
    package let session: UVURLSession
    /// What the getters read.
    package let status: WebSocketTaskStatus
    private let connection: WebSocketConnection

    /// A task for `target`, not connected until ``resume()`` or demand.
    package init(session: UVURLSession, target: Result<HTTPRequestTarget, UVURLError>, extraFields: HTTPFields,
                 subprotocols: [String], options: WebSocketClientOptions) {
        self.session = session
        let status = WebSocketTaskStatus()
        self.status = status
        connection = WebSocketConnection(session: session, status: status, options: options, target: target,
                                         extraFields: extraFields, subprotocols: subprotocols)
    }

    /// Whether the caller is on the loop thread: then the hot calls
    /// (send, receive, demand) run inline without forming the closure
    /// `onLoop` takes, which would allocate a context per call.
    private var isInLoop: Bool { session.loop.isInLoop }

    /// Runs `action` with the connection on the loop thread: inline when
    /// called there, else posted.
    private func onLoop(_ action: @escaping (WebSocketConnection) -> Void) {
        let connection = connection
        if session.loop.isInLoop {
            action(connection)
        } else {
            session.loop.schedule { action(connection) }
        }
    }

    /// Connects and performs the opening handshake. Idempotent.
    package func resume() {
        onLoop { $0.resume() }
    }

    /// Sends `message`; `completion` hears when the kernel took it.
    package func send(_ message: WebSocketClientMessage, completion: ((WebSocketError?) -> Void)?) {
        if isInLoop { return connection.send(message, completion: completion) }
        onLoop { $0.send(message, completion: completion) }
    }

    /// Calls `receiver` with the next message, lent for the call (no
    /// allocation per message).
    package func receive(_ receiver: @escaping (Result<WebSocketBorrowedMessage, WebSocketError>) -> Void) {
        if isInLoop { return connection.receive(receiver) }
        onLoop { $0.receive(receiver) }
    }

    /// Sends a ping; `handler` hears its pong or the error.
    package func sendPing(_ handler: @escaping (WebSocketError?) -> Void) {
        onLoop { $0.sendPing(handler) }
    }

    /// Starts the close handshake (see ``WebSocketConnection/close(code:reason:afterOpening:completion:)``).
    package func close(code: WebSocketCloseCode, reason: [UInt8], afterOpening: Bool = false,
                       completion: ((WebSocketError?) -> Void)?) {
        onLoop { $0.close(code: code, reason: reason, afterOpening: afterOpening, completion: completion) }
    }

    /// Sets the longest message accepted, in bytes.
    package func setMaximumMessageSize(_ size: Int) {
        status.update { $0.maximumMessageSize = size }
        onLoop { $0.setMaximumMessageSize(size) }
    }

    /// Attaches the one message sink (a second is finished with `.cancelled`).
    package func attach(_ sink: any WebSocketMessageSink) {
        onLoop { $0.attach(sink) }
    }

    /// Detaches `sink`, if attached.
    package func detach(_ sink: any WebSocketMessageSink) {
        onLoop { $0.detach(sink) }
    }

    /// Adds `demand` messages for `sink`.
    package func addDemand(_ demand: Int, for sink: any WebSocketMessageSink) {
        if isInLoop { return connection.addDemand(demand, for: sink) }
        onLoop { $0.addDemand(demand, for: sink) }
    }
}
