import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The pet store (Tests/UVCombineOpenAPITests/Server/openapi_server.py,
/// shared with the transport's own tests) as a child process on a port
/// the kernel picks; stopped by PID. This package cannot reach the main
/// package's TestServerSupport (a target, not a product), hence this
/// small launcher of its own.
///
/// Standard output is read on a thread of its own: the port, then the
/// blob route's "sent N" lines (``sentByteCount``) and the held uploads
/// (``holdingCount``).
final class PetStoreProcess: @unchecked Sendable {
    // @unchecked Sendable: the counters are atomic; the rest is immutable.
    let port: Int
    private let process: Process
    private let counters = Counters()

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init() throws {
        let tests = URL(fileURLWithPath: #filePath)  // …/Tests/Interop/OpenAPIClient/Tests/PetStoreClientTests/
        let script = tests.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("UVCombineOpenAPITests/Server/openapi_server.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", script.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        let handle = pipe.fileHandleForReading
        let ready = Counters()
        let counters = counters
        Thread {
            var pending = ""
            while true {
                let data = handle.availableData
                if data.isEmpty {
                    ready.port.store(-1, ordering: .releasing)
                    return
                }
                pending += String(decoding: data, as: UTF8.self)
                while let newline = pending.firstIndex(of: "\n") {
                    let line = pending[..<newline]
                    pending = String(pending[pending.index(after: newline)...])
                    if line.hasPrefix("port "), let value = Int(line.dropFirst(5)) {
                        ready.port.store(value, ordering: .releasing)
                    } else if line.hasPrefix("sent "), let value = Int(line.dropFirst(5)) {
                        counters.sent.store(value, ordering: .releasing)
                    } else if line == "holding" {
                        counters.holding.add(1, ordering: .releasing)
                    }
                }
            }
        }.start()
        // The port line comes once the server listens (10 s at most).
        var port = 0
        for _ in 0..<1000 where port == 0 {
            port = ready.port.load(ordering: .acquiring)
            if port == 0 { usleep(10_000) }
        }
        guard port > 0 else {
            Self.end(process)
            throw Failure(description: "the pet store did not report a port")
        }
        self.port = port
    }

    /// The server URL the generated client is made with.
    var serverURL: URL { URL(string: "http://127.0.0.1:\(port)/api")! }

    /// Body bytes the blob route's kernel accepted so far.
    var sentByteCount: Int { counters.sent.load(ordering: .acquiring) }

    /// Uploads that reached the held route.
    var holdingCount: Int { counters.holding.load(ordering: .acquiring) }

    /// Ends the server by PID (SIGKILL) and waits for it. Idempotent.
    func stop() {
        Self.end(process)
    }

    private static func end(_ process: Process) {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

private final class Counters: Sendable {
    let port = Atomic<Int>(0)
    let sent = Atomic<Int>(0)
    let holding = Atomic<Int>(0)
}

/// Polls `value` every 20 ms until it has not changed for 300 ms (or 10 s
/// passed) and returns it: for counts that stop growing when a peer stalls.
func settledValue(_ value: () -> Int) async -> Int {
    let start = ContinuousClock.now
    var last = value()
    var lastChange = ContinuousClock.now
    while ContinuousClock.now - start < .seconds(10) {
        try? await Task.sleep(for: .milliseconds(20))
        let now = value()
        if now != last {
            last = now
            lastChange = ContinuousClock.now
        } else if ContinuousClock.now - lastChange >= .milliseconds(300) {
            break
        }
    }
    return last
}

/// Polls `condition` every 10 ms for up to 10 s.
func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<1000 {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
