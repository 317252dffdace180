import Foundation
import Testing
import UVCombineHTTP
import UVCombineLoop
import UVCombineWebSocket

/// Runs `body` with a fresh loop and a session on it, then runs the loop
/// until its work is done; the loop must then close cleanly
/// (`uv_loop_close == 0`).
func withWebSocketSession(configuration: UVURLSession.Configuration = .default,
                          sourceLocation: SourceLocation = #_sourceLocation,
                          _ body: (UVURLSession) throws -> Void) throws {
    let loop = try UVLoop()
    do {
        let session = UVURLSession(loop: loop, configuration: configuration)
        try body(session)
        loop.run()
    }
    // The session's shutdown and the last close callbacks.
    loop.run()
    #expect(throws: Never.self, "uv_loop_close must return 0", sourceLocation: sourceLocation) {
        try loop.close()
    }
}

/// Sends messages one at a time, waiting for each echo, then closes with
/// 1000; records what came back and every error. All on the loop thread.
final class EchoExchange: @unchecked Sendable {
    let task: UVWebSocketTask
    private var pending: [UVWebSocketTask.Message]
    private(set) var received: [UVWebSocketTask.Message] = []
    private(set) var errors: [WebSocketError] = []
    /// After the close, the error a receive gets.
    private(set) var finalReceive: WebSocketError?

    init(task: UVWebSocketTask, messages: [UVWebSocketTask.Message]) {
        self.task = task
        pending = messages
    }

    func start() {
        task.resume()
        next()
    }

    private func next() {
        guard !pending.isEmpty else {
            task.cancel(with: .normalClosure, reason: Data("done".utf8))
            task.receive { result in
                if case .failure(let error) = result { self.finalReceive = error }
            }
            return
        }
        let message = pending.removeFirst()
        task.send(message) { error in
            if let error { self.errors.append(error) }
        }
        task.receive { result in
            switch result {
            case .success(let echo):
                self.received.append(echo)
                self.next()
            case .failure(let error):
                self.errors.append(error)
            }
        }
    }
}

/// `count` bytes of a fixed pseudo-random sequence (incompressible).
func noise(_ count: Int) -> Data {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    var bytes = [UInt8](repeating: 0, count: count)
    for index in 0..<count {
        if index & 7 == 0 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        }
        bytes[index] = UInt8(truncatingIfNeeded: state >> UInt64(8 * (index & 7)))
    }
    return Data(bytes)
}

/// Text of `count` UTF-8 bytes with two-byte characters in it.
func sampleText(_ count: Int) -> String {
    let unit = Array("héllo wörld, ".utf8) // 15 bytes
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count)
    while bytes.count + unit.count <= count { bytes += unit }
    while bytes.count < count { bytes.append(UInt8(ascii: "x")) }
    return String(decoding: bytes, as: UTF8.self)
}
