#if OpenAPI
import Foundation
import Synchronization
import TestServerSupport

/// The pet store (Server/openapi_server.py: its docstring lists the
/// routes) as a child process on a loopback port the kernel picks,
/// started with the shared ``ServerProcess`` and stopped by PID.
///
/// Its standard output is read on a thread of its own: ``sentByteCount``
/// follows the blob route's "sent N" lines (body bytes the kernel took,
/// for backpressure), ``holdingCount`` the held uploads.
final class PetStoreServer: @unchecked Sendable {
    // @unchecked Sendable: the counters are atomic; the rest is immutable.
    let port: Int
    private let server: ServerProcess
    private let counters = Counters()

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init() throws {
        guard let python = ServerProcess.executable(named: "python3") else {
            throw Failure(description: "python3 not found")
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Server/openapi_server.py").path
        let server = try ServerProcess(executable: python, arguments: ["-u", script])
        self.server = server
        let (found, text) = server.readPort()
        guard let found, let handle = server.output else {
            server.stop()
            throw Failure(description: "the pet store did not report a port: \(text)")
        }
        port = found
        let counters = counters
        Thread {
            var pending = ""
            while true {
                let data = handle.availableData
                if data.isEmpty { return }
                pending += String(decoding: data, as: UTF8.self)
                while let newline = pending.firstIndex(of: "\n") {
                    let line = pending[..<newline]
                    pending = String(pending[pending.index(after: newline)...])
                    if line.hasPrefix("sent "), let value = Int(line.dropFirst(5)) {
                        counters.sent.store(value, ordering: .releasing)
                    } else if line == "holding" {
                        counters.holding.add(1, ordering: .releasing)
                    }
                }
            }
        }.start()
    }

    /// The server URL a generated client is made with (path prefix `/api`).
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/api")! }

    /// Body bytes the blob route's kernel accepted so far.
    var sentByteCount: Int { counters.sent.load(ordering: .acquiring) }

    /// Uploads that reached the held route.
    var holdingCount: Int { counters.holding.load(ordering: .acquiring) }

    func stop() {
        server.stop()
    }
}

private final class Counters: Sendable {
    let sent = Atomic<Int>(0)
    let holding = Atomic<Int>(0)
}

/// Polls `value` every 20 ms until it has not changed for `quiet` (or
/// `limit` passed) and returns it: for counts that stop growing when a
/// peer stalls.
func settledValue(quiet: Duration = .milliseconds(300), limit: Duration = .seconds(10),
                  _ value: () -> Int) async -> Int {
    let start = ContinuousClock.now
    var last = value()
    var lastChange = ContinuousClock.now
    while ContinuousClock.now - start < limit {
        try? await Task.sleep(for: .milliseconds(20))
        let now = value()
        if now != last {
            last = now
            lastChange = ContinuousClock.now
        } else if ContinuousClock.now - lastChange >= quiet {
            break
        }
    }
    return last
}

/// Polls `condition` every 10 ms for up to 10 s.
func eventually(_ condition: () async -> Bool) async -> Bool {
    for _ in 0..<1000 {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}
#endif
