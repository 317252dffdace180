import Foundation
import Testing
import TestServerSupport

/// The C API through C: Tests/CUVCombineImplementationTests/C/api_test.c
/// (with test_http_server.c, the fetch cases' HTTP server on the same
/// loop), built with gcc `-Wall -Wextra -Werror` against uvcombine.h and
/// libuvcombine-c.so, one process per case, plain and under
/// AddressSanitizer/LeakSanitizer (which fails a case on any leak or bad
/// access).
@Suite("C API", .serialized)
struct CAPITests {
    /// Every case in api_test.c.
    static let cases = [
        "version_and_errors",
        "null_pointers",
        "bad_arguments",
        "created_loop",
        "pending_cancelled_on_close",
        "timer_subscribers",
        "free_inside_callbacks",
        "reentrancy",
        "adopted_detach",
        "detach_outside_run",
        "close_busy",
        "threads",
        "cancel_from_thread",
        "fetch_response",
        "fetch_errors",
        "fetch_https",
        "fetch_bad_input",
        "struct_sizes",
        "fetch_metrics",
        "fetch_http2",
        "fetch_cancel",
        "fetch_reentrancy",
        "shared_fetch",
        "fetch_detach",
        "fetch_close",
        "fetch_threads",
        "websocket",
    ]

    @Test("every case of api_test.c is run here")
    func caseListIsComplete() async {
        guard await CPrograms.requireBuild() else { return }
        let listed = await CPrograms.runBuilt("api_test", ["--list"])
        #expect(listed.status == 0)
        #expect(listed.output.split(separator: "\n").map(String.init) == Self.cases)
    }

    @Test("api_test.c calls every function uvcombine.h declares")
    func everyFunctionIsCalled() throws {
        let declared = try CPrograms.declaredFunctions()
        #expect(declared.count >= 33)
        let source = try String(contentsOf: CPrograms.root.appendingPathComponent(
            "Tests/CUVCombineImplementationTests/C/api_test.c"), encoding: .utf8)
        let uncalled = declared.filter { !source.contains("\($0)(") }
        #expect(uncalled.isEmpty, "not called by api_test.c: \(uncalled.sorted())")
    }

    /// For the `websocket` case: python's websockets echo server, its URL in
    /// `UVC_TEST_WS_URL` (the suite is serialized, so one case at a time
    /// sees the variable). Nil for the other cases. Fails, with what to
    /// install, when the server cannot start.
    static func webSocketServer(for name: String) throws -> ServerProcess? {
        guard name == "websocket" else { return nil }
        if let missing = PythonWebSockets.unavailability {
            throw PythonWebSockets.Missing(description: missing + (PythonWebSockets.requiredByCI ? ", and CI requires it (UVC_REQUIRE_WS_SERVERS=1)" : ""))
        }
        let script = CPrograms.root.appendingPathComponent("Tests/UVCombineWebSocketTests/Servers/python_echo_server.py").path
        let server = try ServerProcess(executable: ServerProcess.executable(named: "python3") ?? "/usr/bin/python3",
                                       arguments: ["-u", script, "deflate"])
        guard let port = server.readPort().port else {
            server.stop()
            throw PythonWebSockets.Missing(description: "python_echo_server.py did not report a port")
        }
        setenv("UVC_TEST_WS_URL", "ws://127.0.0.1:\(port)/echo", 1)
        return server
    }

    /// The cases that run in every environment: all but `websocket`, which
    /// needs python's websockets (see ``webSocketCase()``).
    static let casesWithoutServers = cases.filter { $0 != "websocket" }

    @Test("a case passes", arguments: casesWithoutServers)
    func apiCase(_ name: String) async throws {
        guard await CPrograms.requireBuild() else { return }
        let server = try Self.webSocketServer(for: name)
        defer { server?.stop() }
        let result = await CPrograms.runBuilt("api_test", [name])
        #expect(result.status == 0, "\(result.tail)")
        #expect(result.output.contains("1 passed, 0 failed"))
    }

    @Test("a case passes under AddressSanitizer and LeakSanitizer", arguments: casesWithoutServers)
    func apiCaseUnderAddressSanitizer(_ name: String) async throws {
        guard await CPrograms.requireBuild() else { return }
        let server = try Self.webSocketServer(for: name)
        defer { server?.stop() }
        let result = await CPrograms.runBuilt("api_test-asan", [name])
        #expect(result.status == 0, "\(result.tail)")
        #expect(result.output.contains("1 passed, 0 failed"))
        #expect(!result.error.contains("Sanitizer"), "\(result.tail)")
    }

    /// The `websocket` case, against python's websockets: run when it is
    /// installed or when CI requires it (`UVC_REQUIRE_WS_SERVERS=1`, set by
    /// `.ci/run`, which installs it): then a missing server fails the test
    /// instead of skipping it. A developer without it sees the skip and why.
    @Test("the websocket case passes against python's websockets",
          .enabled(if: PythonWebSockets.shouldRun, "python's websockets is not installed (pip install websockets)"))
    func webSocketCase() async throws {
        try await apiCase("websocket")
    }

    @Test("the websocket case passes under AddressSanitizer and LeakSanitizer",
          .enabled(if: PythonWebSockets.shouldRun, "python's websockets is not installed (pip install websockets)"))
    func webSocketCaseUnderAddressSanitizer() async throws {
        try await apiCaseUnderAddressSanitizer("websocket")
    }
}

/// Whether python's websockets (the `websocket` case's echo server) can
/// run here, and whether CI requires it.
enum PythonWebSockets {
    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    /// `UVC_REQUIRE_WS_SERVERS=1`: CI (`.ci/run`) installed the servers, so
    /// their absence is a failure, not a skip.
    static let requiredByCI = ProcessInfo.processInfo.environment["UVC_REQUIRE_WS_SERVERS"] == "1"

    /// Why the server cannot run, or nil when it can.
    static let unavailability: String? = {
        guard let python = ServerProcess.executable(named: "python3") else { return "python3 not found" }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", "import websockets.asyncio.server"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return "python3 does not start" }
        process.waitUntilExit()
        return process.terminationStatus == 0 ? nil : "python's websockets is not installed (pip install websockets)"
    }()

    /// Run the websocket tests: the server is here, or CI requires it.
    static var shouldRun: Bool { unavailability == nil || requiredByCI }
}
