import UVCombineWebSocketCore
import HTTPTypes
import Synchronization

/// What a task's properties report, readable from any thread: written by
/// the loop side, read by the task's getters (``WebSocketClientTask``, and
/// `UVWebSocketTask` through it).
///
/// Threading: any thread (a `Mutex`).
package final class WebSocketTaskStatus: Sendable {
    package struct Values: Sendable {
        package var state = WebSocketClientState.suspended
        package var closeCode = WebSocketCloseCode.invalid
        package var closeReason: [UInt8]?
        package var maximumMessageSize = 1 << 20
        package var response: HTTPResponse?
        package var subprotocol: String?
        package var compression: PerMessageDeflate.Parameters?
    }

    private let values = Mutex(Values())

    package init() {}

    package func update(_ change: (inout Values) -> Void) {
        values.withLock { change(&$0) }
    }

    package var snapshot: Values { values.withLock { $0 } }

    package var closeCode: WebSocketCloseCode { values.withLock { $0.closeCode } }
    package var maximumMessageSize: Int { values.withLock { $0.maximumMessageSize } }
}
