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

/// `count` bytes of a fixed pseudo-random sequence (incompressible),
/// eight at a time (a byte loop takes seconds for 16 MiB in a debug build).
func noise(_ count: Int) -> Data {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    var data = Data(count: (count + 7) & ~7)
    data.withUnsafeMutableBytes { raw in
        for offset in stride(from: 0, to: raw.count, by: 8) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            raw.storeBytes(of: state, toByteOffset: offset, as: UInt64.self)
        }
    }
    return data.prefix(count)
}

/// Text of `count` UTF-8 bytes with two-byte characters in it.
func sampleText(_ count: Int) -> String {
    let unit = "héllo wörld, " // 15 bytes
    let units = count / 15
    return String(repeating: unit, count: units) + String(repeating: "x", count: count - 15 * units)
}
