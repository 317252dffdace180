import Benchmark
import BenchmarkSupport
import Foundation

// WebSocket on loopback against one hummingbird-websocket echo server in its
// own process (HummingbirdServer, no compression): UVCombine's
// UVWebSocketTask beside swift-websocket 1.6.2's WebSocketClient (in this
// process, on NIO's event loops) and python's websockets client (in its own
// process), in the same run. Wall clock is the comparable figure for all
// three; mallocs per message for the two in this process (the malloc
// counter sees the whole process, NIO's threads too). Without the server
// (UVCOMBINE_HUMMINGBIRD_WS_SERVER unset) nothing is registered; without
// python's websockets its workloads are not.

/// The suite package-benchmark runs.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = Workload.configuration
    guard let server = HummingbirdServer.shared else { return }
    for shape in WebSocketWorkload.shapes { register(shape, server: server) }
}

/// One workload's shape: echo with a window, or receive-only (`/push`).
struct WebSocketWorkload: Sendable {
    let name: String
    let count: Int
    let size: Int
    /// Messages awaiting their echo; nil for receive-only.
    let window: Int?

    static let kib64 = 64 * 1024

    static let shapes = [
        // Round trips: each message sent when the previous echo arrived.
        WebSocketWorkload(name: "roundTrip16B", count: 2_000, size: 16, window: 1),
        WebSocketWorkload(name: "roundTrip64KiB", count: 300, size: kib64, window: 1),
        // Throughput: up to `window` messages in flight.
        WebSocketWorkload(name: "throughput16B", count: 20_000, size: 16, window: 64),
        WebSocketWorkload(name: "throughput64KiB", count: 1_000, size: kib64, window: 16),
        // Receive only: the server pushes; the cost of a received message.
        WebSocketWorkload(name: "receive16B", count: 20_000, size: 16, window: nil),
        WebSocketWorkload(name: "receive64KiB", count: 1_000, size: kib64, window: nil),
    ]

    var path: String { window == nil ? "/push" : "/echo" }
}

func register(_ shape: WebSocketWorkload, server: HummingbirdServer) {
    let configuration = Workload.configuration(maxIterations: 15, maxDuration: .seconds(10))
    let url = server.url(shape.path)

    Benchmark("WebSocket.\(shape.name).uvcombine", configuration: configuration) { benchmark in
        let client = UVCombineClient(url: url)
        if let window = shape.window {
            let payload = Data(repeating: 0x2A, count: shape.size)
            client.echo(count: 1, window: 1, message: .data(payload))
            benchmark.measure(elements: shape.count) {
                client.echo(count: shape.count, window: window, message: .data(payload))
            }
        } else {
            benchmark.measure(elements: shape.count) {
                client.receivePushed(count: shape.count, size: shape.size)
            }
        }
        precondition(client.receivedBytes >= shape.count * shape.size, "short messages")
        client.close()
    }

    if shape.window == nil {
        // The borrowing receive path: the bytes lent from the read buffer,
        // no Data made (the goal: no malloc per message).
        Benchmark("WebSocket.\(shape.name).borrowed", configuration: configuration) { benchmark in
            let client = UVCombineClient(url: url)
            benchmark.measure(elements: shape.count) {
                client.receivePushedBorrowed(count: shape.count, size: shape.size)
            }
            precondition(client.receivedBytes >= shape.count * shape.size, "short messages")
            client.close()
        }
    }

    Benchmark("WebSocket.\(shape.name).swiftWebSocket", configuration: configuration) { benchmark in
        if let window = shape.window {
            try await SwiftWebSocketClient.echo(benchmark, url: url.absoluteString, count: shape.count, window: window, size: shape.size)
        } else {
            try await SwiftWebSocketClient.receivePushed(benchmark, url: url.absoluteString, count: shape.count, size: shape.size)
        }
    }

    guard let python = PythonClient.shared else { return }
    Benchmark("WebSocket.\(shape.name).python", configuration: configuration) { benchmark in
        python.command("connect \(url.absoluteString)")
        let command = shape.window.map { "echo \(shape.count) \($0) \(shape.size)" } ?? "push \(shape.count) \(shape.size)"
        benchmark.measure(elements: shape.count) {
            python.command(command)
        }
        python.command("close")
    }
}
