import AsyncHTTPClientSupport
import Benchmark
import BenchmarkSupport
import LoopSupport
import Foundation
import UVCombine

#if canImport(Glibc)
import Glibc
#endif

/// One GET of a gzip-encoded body that decodes to 64 MiB of JSON-like text
/// lines (about 4:1 with `gzip -6`) per iteration, on a connection opened
/// by an unmeasured request first. `elements` is the *decoded* length, so
/// the report gives decoded MiB/s; mallocs are per request.
///
/// - `uvcombine.dataTask`: the session decodes into one `Data`.
/// - `uvcombine.bytes`: decoded parts (64 KiB each) counted and dropped.
/// - `asyncHTTPClient`: `decompression: .enabled(limit: .none)`, collected
///   into a `ByteBuffer`.
func registerGzip() {
    let configuration = HTTPWorkload.configuration(maxIterations: 25, maxDuration: .seconds(15))
    let length = GzipEndpoint.decodedLength

    Benchmark("HTTP.gzip64MiB.uvcombine.dataTask", configuration: configuration) { benchmark in
        let runner = SessionRunner(url: GzipEndpoint.shared.url, maximumConnectionsPerHost: 1)
        runner.run(total: 1, width: 1)
        let before = runner.accumulator.total
        benchmark.measureExchange(elements: length) {
            runner.run(total: 1, width: 1)
        }
        precondition(runner.accumulator.total - before == length, "short body")
        runner.close()
    }

    Benchmark("HTTP.gzip64MiB.uvcombine.bytes", configuration: configuration) { benchmark in
        let runner = StreamRunner(url: GzipEndpoint.shared.url)
        _ = runner.run()
        var bytes = 0
        benchmark.measureExchange(elements: length) {
            bytes = runner.run()
        }
        precondition(bytes == length, "short body")
        runner.close()
    }

    Benchmark("HTTP.gzip64MiB.asyncHTTPClient", configuration: configuration) { benchmark in
        let runner = AsyncClientRunner(url: GzipEndpoint.shared.url.absoluteString, connections: 1, decompression: true)
        runner.run(total: 1, width: 1)
        let before = runner.accumulator.total
        benchmark.measureExchange(elements: length) {
            runner.run(total: 1, width: 1)
        }
        precondition(runner.accumulator.total - before == length, "short body")
        runner.close()
    }
}

/// A listener on ``BenchServer``'s loop thread whose every response is one
/// fixed gzip body (`Content-Encoding: gzip`, `Content-Length` of the
/// encoded bytes). The body is compressed once, with `gzip -6` (the
/// benchmarks' package does not link zlib), when the first workload that
/// needs it starts.
final class GzipEndpoint: @unchecked Sendable {
    // @unchecked Sendable: set in init, never changed.

    static let shared = GzipEndpoint()
    /// What the body decodes to: 64 MiB.
    static let decodedLength = 64 << 20

    let port: Int
    var url: URL { URL(string: "http://127.0.0.1:\(port)/gzip")! }

    private init() {
        let encoded = Self.gzip(Self.text(length: Self.decodedLength))
        let head = Array("HTTP/1.1 200 OK\r\nContent-Length: \(encoded.count)\r\nContent-Encoding: gzip\r\nContent-Type: application/x-ndjson\r\n\r\n".utf8)
        port = BenchServer.shared.listen(responses: [head, encoded])
    }

    /// `length` bytes of JSON lines with pseudo-random numbers and names.
    private static func text(length: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length + 256)
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        var id = 0
        while bytes.count < length {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            let line = #"{"id":\#(id),"name":"user-\#(String(state >> 40, radix: 36))","score":\#(state % 100_000),"active":\#(state & 1 == 0),"tags":["alpha","beta"]}"#
            bytes += line.utf8
            bytes.append(10)
            id += 1
        }
        return Array(bytes[..<length])
    }

    /// `bytes` through `gzip -6 -c`.
    private static func gzip(_ bytes: [UInt8]) -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-6", "-c", "-n"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            fatalError("GzipEndpoint: /bin/gzip: \(error)")
        }
        let writer = Thread {
            input.fileHandleForWriting.write(Data(bytes))
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let encoded = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        precondition(process.terminationStatus == 0 && !encoded.isEmpty, "GzipEndpoint: gzip failed")
        return Array(encoded)
    }
}
