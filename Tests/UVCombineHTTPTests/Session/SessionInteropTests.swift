import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// Runs `body` with a fresh loop; afterwards the loop is closed and must
/// close cleanly (`uv_loop_close == 0`).
func withRealLoop(sourceLocation: SourceLocation = #_sourceLocation, _ body: (UVLoop) throws -> Void) rethrows {
    let loop: UVLoop
    do {
        loop = try UVLoop()
    } catch {
        Issue.record("UVLoop() failed: \(error)", sourceLocation: sourceLocation)
        return
    }
    try body(loop)
    // Sessions released in `body` closed their idle connections: let the
    // close callbacks run.
    loop.run()
    #expect(throws: Never.self, "uv_loop_close must return 0", sourceLocation: sourceLocation) {
        try loop.close()
    }
}

/// `count` deterministic pseudo-random bytes.
func pseudoRandomBytes(_ count: Int, seed: UInt64 = 42) -> [UInt8] {
    var generator = SplitMix64(seed: seed)
    var bytes = [UInt8](repeating: 0, count: count)
    bytes.withUnsafeMutableBytes { raw in
        var offset = 0
        while offset < count {
            var word = generator.next()
            let n = min(8, count - offset)
            withUnsafeBytes(of: &word) { raw.baseAddress!.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: n) }
            offset += n
        }
    }
    return bytes
}

/// Interoperability with a server we did not write: Python's `http.server`
/// (HTTP/1.0 responses, close-delimited connections).
@Suite("UVURLSession interop: python3 -m http.server")
struct SessionInteropTests {
    @Test("a file of several MiB arrives byte for byte; a missing file is a 404 value")
    func pythonHTTPServer() throws {
        let big = pseudoRandomBytes(5 * 1024 * 1024 + 123)
        let server = try PythonHTTPServer(files: ["big.bin": Data(big)])
        defer { server.stop() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            var files: [Data] = []
            var statuses: [Int] = []
            var completions: [String] = []
            let file = session.dataTaskPublisher(for: URL(string: "http://127.0.0.1:\(server.port)/big.bin")!)
                .sink(receiveCompletion: { completions.append("file: \($0)") }, receiveValue: {
                    files.append($0.data)
                    statuses.append($0.response.status.code)
                })
            let missing = session.dataTaskPublisher(for: URL(string: "http://127.0.0.1:\(server.port)/missing")!)
                .sink(receiveCompletion: { completions.append("missing: \($0)") }, receiveValue: {
                    statuses.append($0.response.status.code)
                })
            loop.run()
            #expect(files.count == 1)
            #expect(files.first?.count == big.count)
            #expect(files.first == Data(big), "byte for byte")
            #expect(statuses.sorted() == [200, 404])
            #expect(completions.sorted() == ["file: finished", "missing: finished"])
            _ = (file, missing)
        }
    }

    @Test("streamed: the parts add up to the file")
    func pythonStreamed() throws {
        let big = pseudoRandomBytes(3 * 1024 * 1024, seed: 7)
        let server = try PythonHTTPServer(files: ["big.bin": Data(big)])
        defer { server.stop() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            var received = Data()
            var head: HTTPResponse?
            var finished = false
            let stream = session.bytesPublisher(for: URL(string: "http://127.0.0.1:\(server.port)/big.bin")!)
                .sink(receiveCompletion: { finished = $0 == .finished }, receiveValue: { part in
                    switch part {
                    case .head(let response): head = response
                    case .body(let chunk): received.append(chunk)
                    }
                })
            loop.run()
            #expect(head?.status.code == 200)
            #expect(head?.headerFields[.contentLength] == "\(big.count)")
            #expect(received == Data(big))
            #expect(finished)
            _ = stream
        }
    }
}
