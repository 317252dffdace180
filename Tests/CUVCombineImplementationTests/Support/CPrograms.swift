import Foundation
import TestServerSupport
import Testing

/// The C side of the C API tests: `make c-build` (libuvcombine-c.so, the
/// example and the C tests, each also with AddressSanitizer) run once per
/// test process, and a runner for the programs it built.
///
/// The build runs inside `swift test`, which holds the lock on `.build` and
/// compiles its modules with `-enable-testing`, so make builds in a scratch
/// directory of its own, `.build/c-api` (a full build the first time,
/// incremental after that), in the configuration of the running tests.
enum CPrograms {
    /// The package's root directory.
    static var root: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent() // Support
            .deletingLastPathComponent() // CUVCombineImplementationTests
            .deletingLastPathComponent() // Tests
            .deletingLastPathComponent()
    }

    /// The Swift build configuration of the running tests.
    static var configuration: String {
        #if DEBUG
        return "debug"
        #else
        return "release"
        #endif
    }

    /// The scratch directory of the library's Swift build.
    static var scratch: String { ".build/c-api" }

    /// Where `make c-build` puts the C programs.
    static var outputDirectory: URL {
        root.appendingPathComponent("\(scratch)/c-host/\(configuration)")
    }

    /// libuvcombine-c.so as built for these tests.
    static var library: URL {
        root.appendingPathComponent("\(scratch)/\(configuration)/libuvcombine-c.so")
    }

    /// The header.
    static var header: URL {
        root.appendingPathComponent("Sources/CUVCombine/include/uvcombine.h")
    }

    /// make's arguments selecting this configuration.
    static var makeVariables: [String] {
        ["C_CONFIG=\(configuration)", "C_SCRATCH=\(scratch)"]
    }

    /// `make c-build`, started on first use, once per process: nil when it
    /// succeeded, its output's end otherwise. A task the tests await, so
    /// that the build (minutes the first time) holds no pool thread.
    static let build = Task { () async -> String? in
        let result = await run(["make", "--no-print-directory", "-C", root.path, "c-build"] + makeVariables,
                               timeout: 1_800)
        return result.status == 0 ? nil : "make c-build failed (\(result.status)):\n\(result.tail)"
    }

    /// Records an issue and returns false unless `make c-build` succeeded.
    static func requireBuild(sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        if let buildFailure = await build.value {
            Issue.record(Comment(rawValue: buildFailure), sourceLocation: sourceLocation)
            return false
        }
        return true
    }

    /// A finished process.
    struct Result {
        var status: Int32
        var output: String
        var error: String

        /// The last lines of both streams, for failure messages.
        var tail: String {
            let lines = (output + "\n" + error).split(separator: "\n", omittingEmptySubsequences: false)
            return lines.suffix(40).joined(separator: "\n")
        }
    }

    /// Runs `arguments` (looked up on PATH) under `timeout` seconds, with
    /// `LD_LIBRARY_PATH` removed (so nothing from the Swift toolchain can
    /// be found unless a binary names it) plus `environment`.
    static func run(_ arguments: [String], environment: [String: String] = [:],
                    timeout: Int = 120) async -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["timeout", "--kill-after=5", String(timeout)] + arguments
        var merged = ProcessInfo.processInfo.environment
        merged["LD_LIBRARY_PATH"] = nil
        merged.merge(environment) { _, new in new }
        process.environment = merged
        process.currentDirectoryURL = root
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("uvcombine-c-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        // Files rather than pipes: a chatty process cannot fill a pipe and stall.
        let outURL = scratch.appendingPathComponent("out")
        let errURL = scratch.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        do {
            process.standardOutput = try FileHandle(forWritingTo: outURL)
            process.standardError = try FileHandle(forWritingTo: errURL)
            // `timeout` (the command) ends it; no watchdog of our own.
            let status = try await process.runUntilExit().status
            let output = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
            let errorText = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
            return Result(status: status, output: output, error: errorText)
        } catch {
            return Result(status: -1, output: "", error: "could not run \(arguments): \(error)")
        }
    }

    /// Examples/c-host/run-with-server.sh: runs a program with the URL of
    /// a `python3 -m http.server` of Examples/c-host on a free port as its
    /// last argument, stops the server by its PID, and prints the server's
    /// request log to stderr ("server: " lines).
    static var withServer: String {
        root.appendingPathComponent("Examples/c-host/run-with-server.sh").path
    }

    /// Runs a program `make c-build` built (e.g. `api_test-asan`), next to
    /// a local HTTP server when `withServer`.
    static func runBuilt(_ name: String, _ arguments: [String] = [], withServer: Bool = false) async -> Result {
        let program = [outputDirectory.appendingPathComponent(name).path] + arguments
        return await run(withServer ? [Self.withServer] + program : program,
                   environment: ["ASAN_OPTIONS": "detect_leaks=1:halt_on_error=1"])
    }

    /// The functions uvcombine.h declares, read from the header with its
    /// comments removed.
    static func declaredFunctions() throws -> Set<String> {
        var text = try String(contentsOf: header, encoding: .utf8)
        while let open = text.range(of: "/*") {
            guard let close = text.range(of: "*/", range: open.upperBound..<text.endIndex) else { break }
            text.removeSubrange(open.lowerBound..<close.upperBound)
        }
        let declaration = /(uvc_[a-z0-9_]+)\(/
        return Set(text.matches(of: declaration).map { String($0.output.1) })
    }
}
