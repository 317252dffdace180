import Foundation
import Testing

/// `uvcombine fetch` against `python3 -m http.server` serving a temporary
/// directory: a server we did not write.
@Suite("uvcombine fetch against python3 -m http.server")
struct FetchPythonTests {
    static let file = Data(testBytes(3 * 1024 * 1024 + 17, seed: 7))

    @Test func largeFileWithOutputIsByteForByte() async throws {
        let python = try PythonHTTPServer(files: ["big.bin": Self.file])
        defer { python.stop() }
        let directory = try TemporaryDirectory()
        let output = directory.file("big.bin")
        let result = try await runTool(["fetch", "-o", output.path, python.url("/big.bin")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(try Data(contentsOf: output) == Self.file)
    }

    @Test func notFoundExitsNonZeroOnlyWithFail() async throws {
        let python = try PythonHTTPServer(files: ["present.txt": Data("here\n".utf8)])
        defer { python.stop() }
        let plain = try await runTool(["fetch", "-i", python.url("/absent.txt")])
        #expect(plain.status == 0, "\(plain.stderr)")
        // http.server answers HTTP/1.0; the status line is printed as received.
        #expect(plain.output.hasPrefix("HTTP/1.0 404 "))
        #expect(plain.output.contains("Error code: 404"))

        let failing = try await runTool(["fetch", "--fail", python.url("/absent.txt")])
        #expect(failing.status == 22)
        #expect(failing.stdout.isEmpty)
        #expect(failing.stderr.contains("(22) The requested URL returned error: 404"))

        let present = try await runTool(["fetch", "--fail", python.url("/present.txt")])
        #expect(present.status == 0)
        #expect(present.output == "here\n")
    }

    @Test func directoryRedirectFollowedOnlyWithLocation() async throws {
        // http.server answers /dir with 301 Location: /dir/.
        let python = try PythonHTTPServer(files: ["dir/inside.txt": Data("inside\n".utf8)])
        defer { python.stop() }
        let plain = try await runTool(["fetch", "-i", python.url("/dir")])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.output.hasPrefix("HTTP/1.0 301 "))
        #expect(plain.output.contains("Location: /dir/\r\n"))

        let followed = try await runTool(["fetch", "-L", python.url("/dir")])
        #expect(followed.status == 0, "\(followed.stderr)")
        #expect(followed.output.contains("inside.txt"))
    }
}
