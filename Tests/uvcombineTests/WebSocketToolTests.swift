import Foundation
import Testing
import TestServerSupport

/// `uvcombine ws` against python's websockets echo server
/// (Tests/UVCombineWebSocketTests/Servers/python_echo_server.py).
@Suite("uvcombine ws", .enabled(if: pythonWebSocketsInstalled(), "python's websockets is not installed (pip install websockets)"))
struct WebSocketToolTests {
    /// Starts the echo server; the caller stops it.
    static func startServer() throws -> (ServerProcess, Int) {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("UVCombineWebSocketTests/Servers/python_echo_server.py").path
        let server = try ServerProcess(executable: ServerProcess.executable(named: "python3")!, arguments: ["-u", script, "deflate"])
        guard let port = server.readPort().port else {
            server.stop()
            throw CocoaError(.fileReadUnknown)
        }
        return (server, port)
    }

    /// Runs `uvcombine ws url` with `input` on standard input; with
    /// `keepInputOpen`, standard input stays open until the tool exits.
    static func run(_ arguments: [String], input: String, keepInputOpen: Bool) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = toolURL()
        process.arguments = ["ws"] + arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
        if !keepInputOpen { try stdin.fileHandleForWriting.close() }
        let (status, _) = try await process.runUntilExit(timeout: 30)
        if keepInputOpen { try stdin.fileHandleForWriting.close() }
        let output = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (status, output)
    }

    @Test("a server close with 4003 after the echo: the echo printed, exit status 103")
    func serverClose() async throws {
        let (server, port) = try Self.startServer()
        defer { server.stop() }
        let result = try await Self.run(["ws://127.0.0.1:\(port)/close/4003"], input: "hi there\n", keepInputOpen: true)
        #expect(result.output == "hi there\n")
        #expect(result.status == 103)
    }

    @Test("the end of standard input closes with 1000: exit status 0")
    func endOfInput() async throws {
        let (server, port) = try Self.startServer()
        defer { server.stop() }
        let result = try await Self.run(["ws://127.0.0.1:\(port)/echo"], input: "one\ntwo\n", keepInputOpen: false)
        #expect(result.status == 0)
        // The echoes that beat the close frame are printed, in order.
        #expect("one\ntwo\n".hasPrefix(result.output))
    }

    @Test("an abrupt end without a close frame: exit status 6")
    func abrupt() async throws {
        let (server, port) = try Self.startServer()
        defer { server.stop() }
        let result = try await Self.run(["ws://127.0.0.1:\(port)/drop"], input: "x\n", keepInputOpen: true)
        #expect(result.status == 6)
    }

    @Test("a refused connection: exit status 16; a usage error: 2")
    func failures() async throws {
        let port = try Loopback.freePort()
        #expect(try await Self.run(["ws://127.0.0.1:\(port)/"], input: "", keepInputOpen: false).status == 16)
        #expect(try await Self.run(["--cacert"], input: "", keepInputOpen: false).status == 2)
    }
}

/// Whether python3 can import websockets' asyncio server.
private func pythonWebSocketsInstalled() -> Bool {
    guard let python = ServerProcess.executable(named: "python3") else { return false }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = ["-c", "import websockets.asyncio.server"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
}
