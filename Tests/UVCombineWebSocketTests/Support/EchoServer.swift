import Foundation
import TestServerSupport

/// A WebSocket echo server we did not write, as a child process on a
/// random loopback port: python's `websockets`, node's `ws` or
/// hummingbird-websocket, with or without permessage-deflate, optionally
/// over TLS (python and hummingbird). The scripts are in `../Servers`;
/// their paths are listed there. The hummingbird server is the test-only
/// package Tests/Interop/HummingbirdWebSocketServer, built by `make
/// interop-servers`, its executable's path in
/// `UVCOMBINE_HUMMINGBIRD_WS_SERVER`.
///
/// ``unavailability(_:)`` says why a server cannot run here, so a suite can
/// skip with a clear message; ``shouldRun(_:)`` is what suites gate on:
/// with `UVC_REQUIRE_WS_SERVERS=1` (CI, `.ci/run`, which installs and
/// builds every server) a missing server fails the tests instead.
final class EchoServer {
    enum Kind: String, CustomStringConvertible, Sendable {
        case python, node, hummingbird
        var description: String { rawValue }
    }

    /// `UVC_REQUIRE_WS_SERVERS=1`: the servers must be here (CI).
    static let requiredByCI = ProcessInfo.processInfo.environment["UVC_REQUIRE_WS_SERVERS"] == "1"

    /// Whether suites against `kind` run: it is here, or CI requires it
    /// (and ``init(_:deflate:tls:)`` then fails saying what is missing).
    static func shouldRun(_ kind: Kind) -> Bool {
        requiredByCI || unavailability(kind) == nil
    }

    /// The hummingbird echo server's executable, from
    /// `UVCOMBINE_HUMMINGBIRD_WS_SERVER` (set by the Makefile's `test`).
    static var hummingbirdExecutable: String? {
        ProcessInfo.processInfo.environment["UVCOMBINE_HUMMINGBIRD_WS_SERVER"].flatMap { $0.isEmpty ? nil : $0 }
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
        case .hummingbird:
            guard let path = hummingbirdExecutable else {
                return "the hummingbird echo server is not built (make interop-servers, then UVCOMBINE_HUMMINGBIRD_WS_SERVER=its path)"
            }
            return FileManager.default.isExecutableFile(atPath: path) ? nil
                : "UVCOMBINE_HUMMINGBIRD_WS_SERVER names \(path), which is not an executable (make interop-servers)"
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
        if let missing = Self.unavailability(kind) {
            throw Failure(description: missing + (Self.requiredByCI ? ", and CI requires it (UVC_REQUIRE_WS_SERVERS=1)" : ""))
        }
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
        case .hummingbird:
            process = try ServerProcess(executable: Self.hummingbirdExecutable!,
                                        arguments: [mode] + (tls.map { [$0.0, $0.1] } ?? []))
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
