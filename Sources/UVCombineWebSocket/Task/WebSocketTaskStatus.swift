import FoundationEssentials
import UVCombineWebSocketCore
import HTTPTypes
import Synchronization

/// What a task's properties report, readable from any thread: written by
/// the loop side, read by ``UVWebSocketTask``'s getters.
///
/// Threading: any thread (a `Mutex`).
internal final class WebSocketTaskStatus: Sendable {
    internal struct Values: Sendable {
        var state = UVWebSocketTask.State.suspended
        var closeCode = WebSocketCloseCode.invalid
        var closeReason: Data?
        var maximumMessageSize = 1 << 20
        var response: HTTPResponse?
        var subprotocol: String?
        var compression: PerMessageDeflate.Parameters?
    }

    private let values = Mutex(Values())

    internal init() {}

    internal func update(_ change: (inout Values) -> Void) {
        values.withLock { change(&$0) }
    }

    internal var snapshot: Values { values.withLock { $0 } }

    internal var closeCode: WebSocketCloseCode { values.withLock { $0.closeCode } }
    internal var maximumMessageSize: Int { values.withLock { $0.maximumMessageSize } }
}
