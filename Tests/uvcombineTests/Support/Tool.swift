import Foundation
import TestServerSupport

/// What a run of the `uvcombine` executable produced.
struct ToolResult {
    let status: Int32
    let stdout: Data
    let stderr: String
    /// Wall-clock seconds the run took.
    let seconds: Double

    var output: String { String(decoding: stdout, as: UTF8.self) }
}

/// The `uvcombine` executable that `swift test` built next to the test
/// bundle: the test binary is `<build>/<Package>PackageTests.xctest` (a
/// file on Linux), the tool sits beside it.
func toolURL() -> URL {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    if !FileManager.default.fileExists(atPath: directory.appendingPathComponent("uvcombine").path) {
        directory = directory.deletingLastPathComponent()
    }
    return directory.appendingPathComponent("uvcombine")
}

/// Runs `uvcombine` with `arguments`, standard input empty, standard
/// output and error into temporary files (no pipe to fill up); killed by
/// PID after `timeout` seconds. Suspends the calling task, not its thread,
/// while the tool runs.
func runTool(_ arguments: [String], timeout: Double = 120) async throws -> ToolResult {
    try await runProcess(toolURL(), arguments, timeout: timeout)
}

/// Runs `executable` as ``runTool(_:timeout:)`` does, in `directory`
/// when one is given, with `environment` when one is given (else the test
/// process's, less its proxy variables).
func runProcess(_ executable: URL, _ arguments: [String], timeout: Double = 120,
                directory workingDirectory: URL? = nil, environment: [String: String]? = nil) async throws -> ToolResult {
    let directory = try TemporaryDirectory()
    let outURL = directory.url.appendingPathComponent("stdout")
    let errURL = directory.url.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let out = try FileHandle(forWritingTo: outURL)
    let err = try FileHandle(forWritingTo: errURL)

    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let workingDirectory { process.currentDirectoryURL = workingDirectory }
    // Without an environment of its own, the test process's, less the
    // proxy variables: curl and fetch both read them, and the servers
    // here are on loopback (a CI machine's proxy must not carry them).
    process.environment = environment ?? ProcessInfo.processInfo.environment.filter { name, _ in
        !["http_proxy", "https_proxy", "all_proxy", "no_proxy"].contains(name.lowercased())
    }
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = out
    process.standardError = err
    let (status, elapsed) = try await process.runUntilExit(timeout: timeout)
    try out.close()
    try err.close()
    return ToolResult(
        status: status,
        stdout: try Data(contentsOf: outURL),
        stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self),
        seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    )
}

/// A directory under the system's temporary directory, removed when the
/// object goes.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("uvcombine-tool-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }
}

/// Deterministic bytes that are not text: `count` bytes of a linear
/// congruential sequence.
func testBytes(_ count: Int, seed: UInt32 = 1) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: state >> 24)
    }
}
