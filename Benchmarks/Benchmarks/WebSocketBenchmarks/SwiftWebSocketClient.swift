import Benchmark
import BenchmarkSupport
import Logging
import NIOCore
import WSClient

/// hummingbird-project/swift-websocket 1.6.2's `WebSocketClient`, as its
/// README writes it: `connect(url:)` with a handler that gets the inbound
/// stream and the outbound writer, on NIO's singleton event loop group.
/// The measured region is inside the handler (the connection is opened
/// and closed outside it).
enum SwiftWebSocketClient {
    /// The benchmark, handed into the handler's `@Sendable` closure. Safe:
    /// package-benchmark waits for the closure, and only the handler's one
    /// task touches it meanwhile.
    final class Measured: @unchecked Sendable {
        let benchmark: Benchmark
        init(_ benchmark: Benchmark) { self.benchmark = benchmark }

        func start() -> (Int, Int) {
            benchmark.startMeasurement()
            return (Workload.processCPUNanoseconds(), Workload.threadCPUNanoseconds())
        }

        func stop(_ started: (Int, Int), elements: Int) {
            let thread = Workload.threadCPUNanoseconds()
            let process = Workload.processCPUNanoseconds()
            benchmark.stopMeasurement()
            benchmark.measurement(Workload.threadCPUTime, thread - started.1)
            benchmark.measurement(Workload.processCPUTime, process - started.0)
            benchmark.measurement(Workload.elements, elements)
        }
    }

    static let logger = Logger(label: "WebSocketBenchmarks")

    static func configuration() -> WebSocketClientConfiguration {
        WebSocketClientConfiguration(maxFrameSize: 1 << 20)
    }

    /// Sends `count` messages of `size` bytes, at most `window` awaiting
    /// their echo, and reads every echo; measured.
    static func echo(_ benchmark: Benchmark, url: String, count: Int, window: Int, size: Int) async throws {
        let measured = Measured(benchmark)
        try await WebSocketClient.connect(url: url, configuration: configuration(), logger: logger) { inbound, outbound, _ in
            let payload = ByteBuffer(repeating: 0x2A, count: size)
            var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
            // One unmeasured round trip: the connection is open.
            try await outbound.write(.binary(payload))
            _ = try await messages.next()
            let started = measured.start()
            var sent = 0
            var received = 0
            while sent < min(window, count) {
                try await outbound.write(.binary(payload))
                sent += 1
            }
            while received < count {
                guard let message = try await messages.next() else { fatalError("SwiftWebSocketClient: the stream ended") }
                if case .binary(let buffer) = message { blackHole(buffer.readableBytes) }
                received += 1
                if sent < count {
                    try await outbound.write(.binary(payload))
                    sent += 1
                }
            }
            measured.stop(started, elements: count)
        }
    }

    /// Asks `/push` for `count` messages of `size` bytes and reads them; measured.
    static func receivePushed(_ benchmark: Benchmark, url: String, count: Int, size: Int) async throws {
        let measured = Measured(benchmark)
        try await WebSocketClient.connect(url: url, configuration: configuration(), logger: logger) { inbound, outbound, _ in
            var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
            try await outbound.write(.text("1 \(size)"))
            _ = try await messages.next()
            let started = measured.start()
            try await outbound.write(.text("\(count) \(size)"))
            for _ in 0..<count {
                guard let message = try await messages.next() else { fatalError("SwiftWebSocketClient: the stream ended") }
                if case .binary(let buffer) = message { blackHole(buffer.readableBytes) }
            }
            measured.stop(started, elements: count)
        }
    }
}
