import Foundation
import TestServerSupport

/// nghttp2's own server (`nghttpd --no-tls`: h2c with prior knowledge)
/// serving files from a temporary folder, started and stopped by PID.
final class NghttpdServer {
    let process: ServerProcess
    let port: Int
    let folder: URL

    /// The binary, or nil (the tests then skip with a message; `.ci/run`
    /// installs Debian's nghttp2-server).
    static var executable: String? {
        ServerProcess.executable(named: "nghttpd")
            ?? (FileManager.default.isExecutableFile(atPath: "/usr/sbin/nghttpd") ? "/usr/sbin/nghttpd" : nil)
    }

    struct NotReady: Error, CustomStringConvertible {
        var description: String { "nghttpd did not accept connections" }
    }

    /// Starts it with `files` (name: bytes) and extra arguments (`-m 1`).
    init(files: [String: [UInt8]], arguments: [String] = []) throws {
        guard let executable = Self.executable else { throw NotReady() }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("uvcombine-h2-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, bytes) in files {
            try Data(bytes).write(to: folder.appendingPathComponent(name))
        }
        port = try Loopback.freePort()
        process = try ServerProcess(executable: executable,
                                    arguments: ["--no-tls", "-a", "127.0.0.1", "-d", folder.path] + arguments + [String(port)],
                                    captureOutput: false)
        guard Loopback.waitUntilAccepting(port: port, while: process) else {
            stop()
            throw NotReady()
        }
    }

    func stop() {
        process.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    deinit { stop() }
}
