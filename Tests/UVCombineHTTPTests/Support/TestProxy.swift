import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// scripts/test-proxy.py on a random loopback port: absolute-form
/// forwarding and `CONNECT` tunnels, optionally requiring basic
/// authentication or refusing every `CONNECT`. Each request it receives
/// is logged with the number of the client connection that carried it
/// (``requests()``).
///
/// Started with Foundation's `Process`; ready once it printed its port;
/// stopped by PID.
final class TestProxy {
    struct Request: Equatable, CustomStringConvertible {
        /// The client connection's number (1, 2, ... in accept order).
        let connection: Int
        let method: String
        let target: String
        let hadAuthorization: Bool

        var description: String { "\(connection) \(method) \(target) auth=\(hadAuthorization)" }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let port: Int
    private let process: Process
    private let directory: URL

    /// The proxy script in the repository.
    static var script: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/test-proxy.py")
    }

    /// Starts a proxy; `auth` is `user:password` to require.
    init(auth: String? = nil, refuseConnect: Bool = false) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("uvcombine-proxy-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard let python = findExecutable("python3") else { throw Failure(description: "python3 not found") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        var arguments = ["-u", Self.script.path, "--log", directory.appendingPathComponent("requests.log").path]
        if let auth { arguments += ["--auth", auth] }
        if refuseConnect { arguments.append("--refuse-connect") }
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        var text = ""
        var found: Int?
        while found == nil {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
            if let range = text.range(of: #"port (\d+)"#, options: .regularExpression) {
                found = Int(text[range].dropFirst(5))
            }
        }
        guard let found else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: directory)
            throw Failure(description: "the proxy did not report a port: \(text)")
        }
        port = found
    }

    /// `127.0.0.1:<port>`.
    var address: String { "127.0.0.1:\(port)" }

    /// The requests received so far, in order.
    func requests() -> [Request] {
        let log = (try? String(contentsOf: directory.appendingPathComponent("requests.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 4, let connection = Int(parts[0]) else { return nil }
            return Request(connection: connection, method: String(parts[1]), target: String(parts[2]),
                           hadAuthorization: parts[3] == "auth=yes")
        }
    }

    /// Stops the proxy by PID (SIGKILL, as the other test servers) and
    /// removes its directory.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
