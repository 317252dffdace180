import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPClient
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// What TLS adds to an HTTP/2 request with 100 in flight on one nginx
/// connection, each completion starting the next (HTTP2Benchmarks'
/// shape), against the same nginx on h2c: OpenSSL 3.0's record layer
/// only (its 40-byte `WPACKET` blocks, about 2 per request, docs/tls.md).
/// Before one TCP write per delivery, every record read wrote, and each
/// write found the ciphertext array still held by TCP: measured 1.99
/// more with it, 2.64 without it (two arrays in turn alone), so the bound
/// is 2.3.
/// Release builds with the allocation hooks only.
@Suite("UVURLSession over HTTP/2 on TLS against nginx: allocations", .serialized,
       .enabled(if: NginxH2Server.executable != nil && AllocationCounter.isCounting,
                "needs nginx and counted allocations (release)"))
struct SessionHTTP2TLSAllocationTests {
    /// Keeps `width` requests in flight; each completion starts the next.
    final class Chain {
        private let session: UVURLSession
        private let request: HTTPRequest
        private var remaining = 0
        private var slots: [AnyCancellable?]
        private(set) var completed = 0
        private(set) var failures = 0

        init(session: UVURLSession, request: HTTPRequest, width: Int) {
            self.session = session
            self.request = request
            slots = Array(repeating: nil, count: width)
        }

        func run(total: Int, on loop: UVLoop) {
            remaining = total
            for slot in slots.indices where remaining > 0 { start(slot) }
            _ = loop.run()
        }

        private func start(_ slot: Int) {
            remaining -= 1
            slots[slot] = session.dataTaskPublisher(for: request).sink(receiveCompletion: { [unowned self] completion in
                if case .failure = completion { failures += 1 }
                completed += 1
                if remaining > 0 { start(slot) }
            }, receiveValue: { _ in })
        }
    }

    /// Mallocs per request on the loop thread, 100 in flight, after a
    /// warm-up, all on one connection.
    func mallocsPerRequest(_ server: NginxH2Server, tls certificate: String?) throws -> Double {
        var perRequest = 0.0
        try withH2Loop { loop in
            let (session, counter) = makeH2Session(loop, version: certificate == nil ? .http2PriorKnowledge : .automatic) {
                if let certificate { $0.tls.trustRoots = .pemFile(certificate) }
            }
            let request = h2Request("127.0.0.1:\(server.port)", "/small.bin", scheme: certificate == nil ? "http" : "https")
            let chain = Chain(session: session, request: request, width: 100)
            // Under nginx's keepalive_requests (1,000): one connection.
            chain.run(total: 200, on: loop)
            // The fewest of three rounds: over loopback a record now and
            // then arrives in two reads, which can add a few mallocs to a
            // round; the steady path is what is pinned.
            let requests = 200
            var fewest = Int.max
            for _ in 0..<3 {
                fewest = min(fewest, AllocationCounter.count { chain.run(total: requests, on: loop) })
            }
            perRequest = Double(fewest) / Double(requests)
            #expect(chain.completed == 800)
            #expect(chain.failures == 0)
            #expect(counter.http2Connections == 1)
            session.invalidateAndCancel()
        }
        return perRequest
    }

    @Test("100 in flight over TLS allocate only OpenSSL's record-layer blocks more than on h2c")
    func tlsOverH2C() throws {
        let files = try SessionHTTP2TLSTests.makeCertificate()
        defer { try? FileManager.default.removeItem(at: files.directory) }
        let body = ["small.bin": patternBytes(100)]
        let tls = try NginxH2Server(files: body, tls: (files.certificate, files.key))
        defer { tls.stop() }
        let cleartext = try NginxH2Server(files: body)
        defer { cleartext.stop() }
        let overTLS = try mallocsPerRequest(tls, tls: files.certificate)
        let overH2C = try mallocsPerRequest(cleartext, tls: nil)
        print("UVURLSession HTTP/2, 100 in flight: \(overH2C) mallocs per request on h2c, \(overTLS) over TLS")
        #expect(overTLS <= overH2C + 2.3, "TLS \(overTLS), h2c \(overH2C)")
    }
}
