import Foundation
import Testing

/// Examples/c-host/host.c, as `make c-host` builds and runs it: a C program
/// with its own loop and uv_timer, our timer cancelled from inside its
/// callbacks, work from a pthread, a detach, and uv_loop_close() == 0.
@Suite("C host example", .serialized)
struct CHostExampleTests {
    static let expectedLines = [
        "first subscriber: tick 1",
        "first subscriber: tick 2",
        "first subscriber: cancelled itself",
        "second subscriber: tick 4",
        "second subscriber: cancelled the timer",
        "from the worker thread: message 1",
        "from the worker thread: message 2",
        "from the worker thread: message 3",
        "delayed callback: ran",
        "host: everything arrived, detaching",
        "detached: every UVCombine handle is closed",
    ]

    func check(_ result: CPrograms.Result) {
        #expect(result.status == 0, "\(result.tail)")
        let lines = result.output.split(separator: "\n").map(String.init)
        for line in Self.expectedLines {
            #expect(lines.contains(line), "missing \"\(line)\" in:\n\(result.output)")
        }
        #expect(!lines.contains("first subscriber: tick 3"))
        #expect(!lines.contains("second subscriber: tick 5"))
        #expect(lines.last?.hasSuffix("uv_loop_close: 0") == true, "\(result.tail)")
    }

    @Test("runs to uv_loop_close() == 0")
    func runs() {
        guard CPrograms.requireBuild() else { return }
        check(CPrograms.runBuilt("host"))
    }

    @Test("runs clean under AddressSanitizer and LeakSanitizer")
    func runsUnderAddressSanitizer() {
        guard CPrograms.requireBuild() else { return }
        let result = CPrograms.runBuilt("host-asan")
        check(result)
        #expect(!result.error.contains("Sanitizer"), "\(result.tail)")
    }
}
