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
    /// sees the variable). Nil for the other cases.
    static func webSocketServer(for name: String) throws -> ServerProcess? {
        guard name == "websocket" else { return nil }
        let script = CPrograms.root.appendingPathComponent("Tests/UVCombineWebSocketTests/Servers/python_echo_server.py").path
        let server = try ServerProcess(executable: ServerProcess.executable(named: "python3") ?? "/usr/bin/python3",
                                       arguments: ["-u", script, "deflate"])
        guard let port = server.readPort().port else {
            server.stop()
            return nil
        }
        setenv("UVC_TEST_WS_URL", "ws://127.0.0.1:\(port)/echo", 1)
        return server
    }

    @Test("a case passes", arguments: cases)
    func apiCase(_ name: String) async throws {
        guard await CPrograms.requireBuild() else { return }
        let server = try Self.webSocketServer(for: name)
        defer { server?.stop() }
        let result = await CPrograms.runBuilt("api_test", [name])
        #expect(result.status == 0, "\(result.tail)")
        #expect(result.output.contains("1 passed, 0 failed"))
    }

    @Test("a case passes under AddressSanitizer and LeakSanitizer", arguments: cases)
    func apiCaseUnderAddressSanitizer(_ name: String) async throws {
        guard await CPrograms.requireBuild() else { return }
        let server = try Self.webSocketServer(for: name)
        defer { server?.stop() }
        let result = await CPrograms.runBuilt("api_test-asan", [name])
        #expect(result.status == 0, "\(result.tail)")
        #expect(result.output.contains("1 passed, 0 failed"))
        #expect(!result.error.contains("Sanitizer"), "\(result.tail)")
    }
}
