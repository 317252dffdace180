import Foundation
import TestServerSupport

/// A WebSocket echo server we did not write, as a child process on a
/// random loopback port: python's `websockets` or node's `ws`, with or
/// without permessage-deflate, optionally over TLS (python only). The
/// scripts are in `../Servers`; their paths are listed there.
///
/// ``start(_:)`` returns nil when the runtime or the library is missing,
/// so a test can skip with a clear message instead of failing.
final class EchoServer {
    enum Kind: String, CustomStringConvertible, Sendable {
        case python, node
        var description: String { rawValue }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let port: Int
    private let process: ServerProcess

    static var serversDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Servers")
    }

    /// Why `kind` cannot run here, or nil when it can.
    static func unavailability(_ kind: Kind) -> String? {
        switch kind {
        case .python:
            guard let python = ServerProcess.executable(named: "python3") else { return "python3 not found" }
            return run(python, ["-c", "import websockets.asyncio.server"]) ? nil
                : "python's websockets is not installed (pip install websockets)"
        case .node:
            guard let node = ServerProcess.executable(named: "node") else { return "node not found" }
            return run(node, ["-e", "require('ws')"], nodePath: true) ? nil : "node's ws is not installed (apt-get install node-ws)"
        }
    }

    private static func run(_ executable: String, _ arguments: [String], nodePath: Bool = false) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if nodePath { process.environment = environmentWithNodePath() }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    private static func environmentWithNodePath() -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["NODE_PATH"] = [environment["NODE_PATH"], "/usr/share/nodejs"].compactMap { $0 }.joined(separator: ":")
        return environment
    }

    /// Starts the server; `tls` is (certificate, key) for `wss`.
    init(_ kind: Kind, deflate: Bool, tls: (String, String)? = nil) throws {
        let mode = deflate ? "deflate" : "plain"
        switch kind {
        case .python:
            let python = ServerProcess.executable(named: "python3")!
            let script = Self.serversDirectory.appendingPathComponent("python_echo_server.py").path
            // UVCOMBINE_WS_DEBUG=1 makes the server log every frame to /tmp/uvcombine-ws-python.log.
            let log = ProcessInfo.processInfo.environment["UVCOMBINE_WS_DEBUG"] == nil ? nil
                : FileHandle(forWritingAtPath: "/tmp/uvcombine-ws-python.log")
            process = try ServerProcess(executable: python, arguments: ["-u", script, mode] + (tls.map { [$0.0, $0.1] } ?? []),
                                        standardError: log)
        case .node:
            let node = ServerProcess.executable(named: "node")!
            let script = Self.serversDirectory.appendingPathComponent("node_echo_server.js").path
            // NODE_PATH through `env`: ServerProcess passes our environment.
            setenv("NODE_PATH", Self.environmentWithNodePath()["NODE_PATH"]!, 1)
            process = try ServerProcess(executable: node, arguments: [script, mode])
        }
        let (found, text) = process.readPort()
        guard let found else {
            process.stop()
            throw Failure(description: "\(kind) did not report a port: \(text)")
        }
        port = found
    }

    func stop() {
        process.stop()
    }

    deinit {
        process.stop()
    }
}
