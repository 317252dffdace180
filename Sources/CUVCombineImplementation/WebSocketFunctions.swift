import CUVCombine
import UVCombineWebSocketClient
import UVCombineWebSocketCore

// The WebSocket functions of uvcombine.h, checked against the header by the
// compiler (`@c @implementation`); the header documents them.

/// Connects a WebSocket. Any thread. See `uvc_websocket_connect` in uvcombine.h.
@c @implementation
public func uvc_websocket_connect(_ session: OpaquePointer?, _ url: UnsafePointer<CChar>?, _ protocols: UnsafePointer<CChar>?,
                                  _ cb: uvc_websocket_cb?, _ user_data: UnsafeMutableRawPointer?,
                                  _ ws_out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    ws_out?.pointee = nil
    guard let session, let url, let cb, let ws_out else { return Status.invalid }
    let object = SessionObject.from(session)
    let names = protocols.map { String(cString: $0).split(separator: ",").map { String($0.filter { $0 != " " && $0 != "\t" }) } } ?? []
    // An invalid URL makes a task that fails when it starts (reported by
    // the callback), parsed without Foundation (HTTPRequestTarget).
    let target = WebSocketTarget.parse(String(cString: url))
    let task = WebSocketClientTask(session: object.session, target: target, extraFields: [:],
                                   subprotocols: names, options: WebSocketClientOptions())
    let socket = WebSocketObject(task: task, callback: cb, userData: user_data)
    // Attached now (no demand yet), so every later request reaches it;
    // both run on the loop, never calling back inside this call.
    task.attach(socket)
    task.resume()
    ws_out.pointee = socket.retainedPointer
    return Status.ok
}

/// Asks for more messages. Any thread. See `uvc_websocket_request` in uvcombine.h.
@c @implementation
public func uvc_websocket_request(_ ws: OpaquePointer?, _ count: UInt64) -> Int32 {
    guard let ws, count > 0 else { return Status.invalid }
    WebSocketObject.from(ws).request(count)
    return Status.ok
}

/// Sends a message. Any thread. See `uvc_websocket_send` in uvcombine.h.
@c @implementation
public func uvc_websocket_send(_ ws: OpaquePointer?, _ type: Int32, _ data: UnsafeRawPointer?, _ length: Int) -> Int32 {
    guard let ws, data != nil || length == 0, length >= 0 else { return Status.invalid }
    let bytes = data.map { UnsafeRawBufferPointer(start: $0, count: length) } ?? UnsafeRawBufferPointer(start: nil, count: 0)
    let message: WebSocketClientMessage
    switch type {
    case Int32(UVC_WS_TEXT.rawValue): message = .text(String(decoding: bytes, as: UTF8.self))
    case Int32(UVC_WS_BINARY.rawValue): message = .binary(Array(bytes))
    default: return Status.invalid
    }
    WebSocketObject.from(ws).task.send(message, completion: nil)
    return Status.ok
}

/// Starts the close handshake. Any thread. See `uvc_websocket_close` in uvcombine.h.
@c @implementation
public func uvc_websocket_close(_ ws: OpaquePointer?, _ code: Int32, _ reason: UnsafePointer<CChar>?) -> Int32 {
    guard let ws, (1000...4999).contains(code) else { return Status.invalid }
    let text = reason.map { Array(String(cString: $0).utf8) } ?? []
    WebSocketObject.from(ws).task.close(code: WebSocketCloseCode(rawValue: Int(code)), reason: text, completion: nil)
    return Status.ok
}

/// Frees a WebSocket. Any thread. See `uvc_websocket_free` in uvcombine.h.
@c @implementation
public func uvc_websocket_free(_ ws: OpaquePointer?) -> Int32 {
    guard let ws else { return Status.invalid }
    WebSocketObject.from(ws).free()
    WebSocketObject.release(ws)
    return Status.ok
}
