import FoundationEssentials
import UVCombineWebSocketClient

// The edge between the public `Data` message and the client's bytes: one
// copy each way. A received message is lent by the reader and copied once
// into the owned value the `URLSessionWebSocketTask` shape requires: a
// `Data` beyond 14 bytes is two allocations (its storage object and the
// bytes), a `String` beyond 15 bytes one. `receiveBorrowed(_:)` skips
// this copy. A message to send is copied from the caller's `Data` into an
// array.
extension UVWebSocketTask.Message {
    /// The public form of a message the client task lent: a copy.
    internal init(copying message: WebSocketBorrowedMessage) {
        switch message.kind {
        case .text: self = .string(message.text)
        case .binary: self = .data(Data(buffer: message.bytes.assumingMemoryBound(to: UInt8.self)))
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
