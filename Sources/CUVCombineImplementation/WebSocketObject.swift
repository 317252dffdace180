import CLibUV
import CUVCombine
import FoundationEssentials
import Synchronization
import UVCombineCore
import UVCombineHTTP
import UVCombineWebSocket

/// The object behind a `uvc_websocket_t`: the task, and the subscriber of
/// its messages that calls the C callback. Demand comes only from
/// `uvc_websocket_request`, so without it the socket is not read.
///
/// Threading: the C functions from any thread; deliveries on the loop
/// thread, inside the gate, which `free` passes so that no callback runs
/// after it returned.
internal final class WebSocketObject: OpaqueObject, Subscriber, @unchecked Sendable {
    // @unchecked: `callback` and `userData` are immutable C values; the
    // mutable state is in `state` (a lock) and deliveries are serialised
    // by `gate`.
    internal typealias Input = UVWebSocketTask.Message
    internal typealias Failure = WebSocketError

    internal let combineIdentifier = CombineIdentifier()
    internal let task: UVWebSocketTask
    private let callback: uvc_websocket_cb
    private let userData: UnsafeMutableRawPointer?

    private struct State {
        var subscription: (any Subscription)?
        var isFreed = false
        var isEnded = false
    }

    private let state = Locked(State())
    private let gate = DownstreamGate()

    internal init(task: UVWebSocketTask, callback: @escaping uvc_websocket_cb, userData: UnsafeMutableRawPointer?) {
        self.task = task
        self.callback = callback
        self.userData = userData
    }

    // MARK: Subscriber (loop thread, or the thread subscribing)

    internal func receive(subscription: any Subscription) {
        let accepted = state.withLock { state -> Bool in
            guard !state.isFreed, state.subscription == nil else { return false }
            state.subscription = subscription
            return true
        }
        if !accepted { subscription.cancel() }
    }

    internal func receive(_ input: UVWebSocketTask.Message) -> Subscribers.Demand {
        gate.withGate { _ in
            guard !state.withLock({ $0.isFreed }) else { return }
            var event = uvc_ws_event_t()
            event.kind = Int32(UVC_WS_EVENT_MESSAGE.rawValue)
            switch input {
            case .string(var text):
                event.type = Int32(UVC_WS_TEXT.rawValue)
                text.withUTF8 { bytes in
                    event.data = UnsafeRawPointer(bytes.baseAddress)
                    event.length = bytes.count
                    callback(pointer, &event, userData)
                }
            case .data(let data):
                event.type = Int32(UVC_WS_BINARY.rawValue)
                data.withUnsafeBytes { bytes in
                    event.data = bytes.baseAddress
                    event.length = bytes.count
                    callback(pointer, &event, userData)
                }
            }
        }
        return .none
    }

    internal func receive(completion: Subscribers.Completion<WebSocketError>) {
        gate.withGate { _ in
            let deliver = state.withLock { state -> Bool in
                defer {
                    state.isEnded = true
                    state.subscription = nil
                }
                return !state.isFreed && !state.isEnded
            }
            guard deliver else { return }
            let (status, text) = Self.status(of: completion)
            let closeCode = task.closeCode.rawValue
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

    /// The C status and description of how the connection ended.
    private static func status(of completion: Subscribers.Completion<WebSocketError>) -> (Int32, String) {
        guard case .failure(let error) = completion else { return (0, "closed") }
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
        let subscription = state.withLock { $0.isFreed ? nil : $0.subscription }
        subscription?.request(count >= UInt64(Int.max) ? .unlimited : .max(Int(count)))
    }

    /// Stops every callback (waiting for one in flight on another thread)
    /// and closes an open connection with 1001.
    internal func free() {
        let subscription = gate.withGate { _ in
            state.withLock { state -> (any Subscription)? in
                state.isFreed = true
                defer { state.subscription = nil }
                return state.subscription
            }
        }
        subscription?.cancel()
        task.cancel(with: .goingAway, reason: nil)
    }
}
