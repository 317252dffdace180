import CLibUV
import CUVCombine
import Synchronization
import UVCombineCore
import UVCombineWebSocketClient

/// The object behind a `uvc_websocket_t`: the byte-based task, and the
/// sink of its messages that calls the C callback. Demand comes only from
/// `uvc_websocket_request`, so without it the socket is not read.
///
/// Threading: the C functions from any thread; deliveries on the loop
/// thread, inside the gate, which `free` passes so that no callback runs
/// after it returned.
internal final class WebSocketObject: OpaqueObject, WebSocketMessageSink, @unchecked Sendable {
    // @unchecked: `callback` and `userData` are immutable C values; the
    // mutable state is in `state` (a lock) and deliveries are serialised
    // by `gate`.
    internal let task: WebSocketClientTask
    private let callback: uvc_websocket_cb
    private let userData: UnsafeMutableRawPointer?

    private struct State {
        var isFreed = false
        var isEnded = false
    }

    private let state = Locked(State())
    private let gate = DownstreamGate()

    internal init(task: WebSocketClientTask, callback: @escaping uvc_websocket_cb, userData: UnsafeMutableRawPointer?) {
        self.task = task
        self.callback = callback
        self.userData = userData
    }

    // MARK: WebSocketMessageSink (loop thread)

    /// Hands the lent bytes to the callback as they are: no copy, no
    /// allocation (the connection lends them from its read buffer).
    internal func receive(_ message: WebSocketBorrowedMessage) -> Int {
        gate.withGate { _ in
            guard !state.withLock({ $0.isFreed }) else { return }
            var event = uvc_ws_event_t()
            event.kind = Int32(UVC_WS_EVENT_MESSAGE.rawValue)
            event.type = Int32(message.kind == .text ? UVC_WS_TEXT.rawValue : UVC_WS_BINARY.rawValue)
            // NULL for an empty message, as the header says (an empty
            // view into the read buffer still has an address).
            event.data = message.bytes.isEmpty ? nil : message.bytes.baseAddress
            event.length = message.bytes.count
            callback(pointer, &event, userData)
        }
        // More demand comes only from uvc_websocket_request.
        return 0
    }

    internal func finish(_ error: WebSocketError?) {
        gate.withGate { _ in
            let deliver = state.withLock { state -> Bool in
                defer { state.isEnded = true }
                return !state.isFreed && !state.isEnded
            }
            guard deliver else { return }
            let (status, text) = Self.status(of: error)
            let closeCode = task.status.closeCode.rawValue
            text.withCString { message in
                var event = uvc_ws_event_t()
                event.kind = Int32(UVC_WS_EVENT_CLOSED.rawValue)
                event.close_code = Int32(closeCode)
                event.status = status
                event.message = message
                callback(pointer, &event, userData)
            }
        }
    }

    /// The C status and description of how the connection ended: nil
    /// after a completed close handshake.
    private static func status(of error: WebSocketError?) -> (Int32, String) {
        guard let error else { return (0, "closed") }
        switch error.reason {
        case .transport(let failure): return (FetchResult.status(for: failure.code), error.description)
        case .handshake: return (UVC_EBADRESPONSE.rawValue, error.description)
        case .protocolViolation: return (UV_EPROTO.rawValue, error.description)
        case .abnormalClosure: return (UV_EOF.rawValue, error.description)
        case .closed: return (0, error.description)
        case .cancelled: return (UV_ECANCELED.rawValue, error.description)
        case .timedOut: return (UVC_ETIMEDOUT.rawValue, error.description)
        }
    }

    // MARK: The C side

    internal func request(_ count: UInt64) {
        let active = state.withLock { !$0.isFreed && !$0.isEnded }
        guard active else { return }
        task.addDemand(count >= UInt64(Int.max) ? Int.max : Int(count), for: self)
    }

    /// Stops every callback (waiting for one in flight on another thread),
    /// detaches from the task (the connection held this object until then)
    /// and closes an open connection with 1001.
    internal func free() {
        gate.withGate { _ in
            state.withLock { $0.isFreed = true }
        }
        task.detach(self)
        task.close(code: .goingAway, reason: [], completion: nil)
    }
}
