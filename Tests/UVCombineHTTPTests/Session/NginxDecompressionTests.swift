import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// Decompression against nginx with `gzip on` (its gzip filter answers
/// chunked, with no Content-Length), a server we did not write.
@Suite("UVURLSession decompression against nginx", .enabled(if: NginxServer.isAvailable, "nginx is not installed"))
struct NginxDecompressionTests {
    static let text = compressibleText(2 * 1024 * 1024 + 17)

    @Test("gzip on: the data task gets the file, the head says gzip; HEAD and an opted-out session too")
    func dataTask() throws {
        let nginx = try NginxServer(files: ["big.txt": Data(Self.text), "small.txt": Data("small\n".utf8)])
        defer { nginx.stop() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            for _ in 0..<3 {
                let outcome = fetch(session.dataTaskPublisher(for: nginx.url("/big.txt")), on: loop)
                let value = try? outcome?.get()
                #expect(value?.data == Data(Self.text), "\(String(describing: outcome?.error))")
                #expect(value?.response.headerFields[.contentEncoding] == "gzip")
                #expect(value?.response.headerFields[.transferEncoding] == "chunked")
            }
            #expect(fetch(session.dataTaskPublisher(for: nginx.url("/small.txt")), on: loop)?.text == "small\n")
            let head = HTTPRequest(method: .head, scheme: "http", authority: "127.0.0.1:\(nginx.port)", path: "/big.txt")
            let headOutcome = fetch(session.dataTaskPublisher(for: head), on: loop)
            #expect(headOutcome?.status == 200 && headOutcome?.text == "")

            var configuration = UVURLSession.Configuration()
            configuration.decompressesResponses = false
            let plain = UVURLSession(loop: loop, configuration: configuration)
            let value = try? fetch(plain.dataTaskPublisher(for: nginx.url("/big.txt")), on: loop)?.get()
            #expect(value?.data == Data(Self.text))
            #expect(value?.response.headerFields[.contentEncoding] == nil, "nothing asked, nothing compressed")
            #expect(value?.response.headerFields[.contentLength] == "\(Self.text.count)")
        }
    }

    @Test("streamed one part at a time: every decoded byte, parts of at most 64 KiB")
    func streamed() throws {
        let nginx = try NginxServer(files: ["big.txt": Data(Self.text)])
        defer { nginx.stop() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            let tracker = PartsTracker(initialDemand: .max(1))
            session.bytesPublisher(for: nginx.url("/big.txt")).subscribe(tracker)
            loop.run()
            var requests = 1
            while tracker.completion == nil && requests < 10_000 {
                #expect(session.engine.heldResponseByteCount <= 2 * 64 * 1024)
                tracker.request(.max(1))
                requests += 1
                loop.run()
            }
            #expect(tracker.completion == .finished)
            var body: [UInt8] = []
            for case .body(let data) in tracker.values {
                #expect(data.count <= 64 * 1024)
                body += data
            }
            #expect(Data(body) == Data(Self.text))
            #expect(tracker.values.first?.response?.headerFields[.contentEncoding] == "gzip")
        }
    }
}
