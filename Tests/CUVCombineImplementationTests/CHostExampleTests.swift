import Foundation
import Testing

/// Examples/c-host/host.c, as `make c-host` builds and runs it: a C program
/// with its own loop and uv_timer, our timer cancelled from inside its
/// callbacks, fetches from a local server (one shared fetch read by two
/// callbacks, a 404), work from a pthread, a detach, and
/// uv_loop_close() == 0. The server is `python3 -m http.server` on a free
/// port, started and stopped by its PID by Examples/c-host/run-with-server.sh,
/// which also prints its request log.
@Suite("C host example", .serialized)
struct CHostExampleTests {
    static let expectedLines = [
        "first subscriber: tick 1",
        "first subscriber: tick 2",
        "first subscriber: cancelled itself",
        "second subscriber: tick 4",
        "second subscriber: cancelled the timer",
        "fetch /no-such-file: 404",
        "from the worker thread: message 1",
        "from the worker thread: message 2",
        "from the worker thread: message 3",
        "delayed callback: ran",
        "host: everything arrived, detaching",
        "detached: every UVCombine handle is closed",
    ]

    func check(_ result: CPrograms.Result) throws {
        #expect(result.status == 0, "\(result.tail)")
        let lines = result.output.split(separator: "\n").map(String.init)
        for line in Self.expectedLines {
            #expect(lines.contains(line), "missing \"\(line)\" in:\n\(result.output)")
        }
        #expect(!lines.contains("first subscriber: tick 3"))
        #expect(!lines.contains("second subscriber: tick 5"))
        #expect(lines.last?.hasSuffix("uv_loop_close: 0") == true, "\(result.tail)")
        // Both readers of the shared fetch got host.c, from one request.
        let attributes = try FileManager.default.attributesOfItem(
            atPath: CPrograms.root.appendingPathComponent("Examples/c-host/host.c").path)
        let size = try #require(attributes[.size] as? Int)
        for reader in 1...2 {
            let line = "shared fetch, reader \(reader): 200 OK, \(size) bytes"
            #expect(lines.contains(line), "missing \"\(line)\" in:\n\(result.output)")
        }
        let requests = result.error.split(separator: "\n").filter { $0.hasPrefix("server: ") }
        #expect(requests.filter { $0.contains("\"GET /host.c ") }.count == 1, "\(result.error)")
        #expect(requests.filter { $0.contains("\"GET /no-such-file ") }.count == 1, "\(result.error)")
        #expect(requests.count == 2, "\(result.error)")
    }

    @Test("runs to uv_loop_close() == 0")
    func runs() async throws {
        guard await CPrograms.requireBuild() else { return }
        try check(await CPrograms.runBuilt("host", withServer: true))
    }

    @Test("runs clean under AddressSanitizer and LeakSanitizer")
    func runsUnderAddressSanitizer() async throws {
        guard await CPrograms.requireBuild() else { return }
        let result = await CPrograms.runBuilt("host-asan", withServer: true)
        try check(result)
        #expect(!result.error.contains("Sanitizer"), "\(result.tail)")
    }

    @Test("without a server URL it prints its usage")
    func usage() async {
        guard await CPrograms.requireBuild() else { return }
        let result = await CPrograms.runBuilt("host")
        #expect(result.status == 2)
        #expect(result.error.contains("usage:"))
    }
}
