import FoundationEssentials
import UVCombineWebSocketClient

// The edge between the public `Data` message and the client's bytes: one
// copy each way (a `Data` from the reader's array; an array from the
// caller's `Data`), as many as the task made before the split.
extension UVWebSocketTask.Message {
    /// The public form of a message the client task delivered.
    internal init(_ message: WebSocketClientMessage) {
        switch message {
        case .text(let text): self = .string(text)
        case .binary(let bytes): self = .data(Data(bytes))
        }
    }

    /// The client task's form of a message to send.
    internal var clientMessage: WebSocketClientMessage {
        switch self {
        case .string(let text): .text(text)
        case .data(let data): .binary(Array(data))
        }
    }
}

extension UVWebSocketTask.Options {
    /// The same options for the client task.
    internal var clientOptions: WebSocketClientOptions {
        var options = WebSocketClientOptions()
        options.maximumFrameSize = maximumFrameSize
        options.compression = compression
        options.openingHandshakeTimeout = openingHandshakeTimeout
        options.closeTimeout = closeTimeout
        return options
    }
}
