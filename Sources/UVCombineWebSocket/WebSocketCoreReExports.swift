// The protocol core's public-API types, re-exported one by one, so that
// `import UVCombineWebSocket` (and `import UVCombine`) shows them as before
// the core became its own target, and nothing else of it: the frame codec,
// the message reader and deflate stay behind `import UVCombineWebSocketCore`
// (docs/websocket.md, "The protocol core").
@_exported import struct UVCombineWebSocketCore.WebSocketCloseCode
@_exported import struct UVCombineWebSocketCore.WebSocketHandshakeError
@_exported import struct UVCombineWebSocketCore.WebSocketProtocolError
@_exported import enum UVCombineWebSocketCore.PerMessageDeflate

// The task's error lives in UVCombineWebSocketClient (the byte-based task
// the C API drives, with no Foundation module); re-exported as the rest.
@_exported import struct UVCombineWebSocketClient.WebSocketError
// The lent message of `UVWebSocketTask.receiveBorrowed(_:)`.
@_exported import struct UVCombineWebSocketClient.WebSocketBorrowedMessage
