import Foundation

/// The hummingbird-websocket echo server (Tests/Interop/HummingbirdWebSocketServer,
/// built by `make interop-servers`) in its own process, started once per
/// benchmark executable from the path in `UVCOMBINE_HUMMINGBIRD_WS_SERVER`
/// (the Makefile's `bench` and `bench-check` set it), without
/// permessage-deflate: every client is measured on the same framing work.
/// Nil, and the workloads unregistered, when the variable is unset.
final class HummingbirdServer: @unchecked Sendable {
    let port: Int
    private let process: Process

    /// The server of this run, started on first use.
    static let shared: HummingbirdServer? = start()

    private init(port: Int, process: Process) {
        self.port = port
        self.process = process
    }

    /// `ws://127.0.0.1:PORT/PATH`.
    func url(_ path: String) -> URL {
        URL(string: "ws://127.0.0.1:\(port)\(path)")!
    }

    private static func start() -> HummingbirdServer? {
        guard let path = ProcessInfo.processInfo.environment["UVCOMBINE_HUMMINGBIRD_WS_SERVER"], !path.isEmpty else {
            FileHandle.standardError.write(Data("WebSocketBenchmarks: UVCOMBINE_HUMMINGBIRD_WS_SERVER is not set (make interop-servers); the WebSocket workloads are skipped\n".utf8))
            return nil
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["plain"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch {
            fatalError("WebSocketBenchmarks: \(path) did not start: \(error)")
        }
        // "listening on port N "
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { fatalError("WebSocketBenchmarks: the server exited before listening: \(text)") }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let port = text.split(separator: " ").compactMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }).first else {
            fatalError("WebSocketBenchmarks: no port in \(text)")
        }
        let server = HummingbirdServer(port: port, process: process)
        atexit { HummingbirdServer.shared?.stop() }
        return server
    }

    /// Ends the server by its PID. Idempotent.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
