import HTTPTypes
import Testing
import UVCombineHTTP2
import UVCombineHTTPCore

/// The client connection on a real socket against nginx's HTTP/2 on a
/// cleartext listener (prior knowledge).
@Suite("HTTP/2 against nginx (h2c)", .serialized, .enabled(if: NginxH2Server.executable != nil, "nginx is not installed"))
struct HTTP2NginxTests {
    static let small = Array(repeating: UInt8(ascii: "n"), count: 2048)
    static let big = (0..<(1 << 20)).map { UInt8($0 % 251) }

    static func get(_ port: Int, _ path: String) -> HTTPRequest {
        HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(port)", path: path)
    }

    @Test("100 concurrent streams; nginx's SETTINGS reported")
    func hundredConcurrent() throws {
        let server = try NginxH2Server(files: ["small.txt": Self.small])
        defer { server.stop() }
        let driver = try SocketDriver()
        driver.afterRead = { driver in
            if driver.recorder.ended.count == 100 { driver.h2.shutdown() }
        }
        try driver.run(port: server.port) { driver in
            for _ in 0..<100 { _ = try driver.h2.openStream(Self.get(server.port, "/small.txt")) }
        }
        #expect(!driver.timedOut)
        #expect(driver.recorder.records.contains(.settings(maxConcurrentStreams: 128)))
        #expect(driver.recorder.ended.count == 100)
        #expect(driver.recorder.failed.isEmpty)
        for id in driver.recorder.ended {
            #expect(driver.recorder.heads[id]?.status == .ok)
            #expect(driver.recorder.bodies[id] == Self.small)
        }
    }

    @Test("nginx's responses, 100 in flight: nghttp2's blocks come from the connection's cache, not malloc")
    func blockCachePerRequest() throws {
        let server = try NginxH2Server(files: ["small.txt": Array(Self.small.prefix(100))])
        defer { server.stop() }
        let driver = try SocketDriver()
        driver.recorder.keepsRecords = false
        let cache = driver.h2.blockCache
        // nginx's keepalive_requests (1,000) ends the connection there.
        let total = 1000
        var sent = 0
        var mark: (ended: Int, requests: Int, system: Int)?
        driver.afterRead = { driver in
            let ended = driver.recorder.endCount
            if mark == nil, ended >= 200 { mark = (ended, cache.requests, cache.systemAllocations) }
            while sent < total && sent - ended < 100 {
                _ = try? driver.h2.openStream(Self.get(server.port, "/small.txt"))
                sent += 1
            }
            if ended == total { driver.h2.shutdown() }
        }
        try driver.run(port: server.port) { _ in }
        #expect(!driver.timedOut)
        #expect(driver.recorder.endCount == total)
        let start = try #require(mark)
        let measured = Double(total - start.ended)
        let requests = Double(cache.requests - start.requests) / measured
        let system = Double(cache.systemAllocations - start.system) / measured
        print("HTTP2 block cache against nginx: nghttp2 asked \(requests) blocks per request, \(system) from malloc")
        #expect(requests >= 1)
        #expect(system < 0.05, "system allocations per request: \(system)")
    }

    @Test("a stalled stream holds only its window while the others complete")
    func stalledStream() throws {
        let server = try NginxH2Server(files: ["small.txt": Self.small, "big.bin": Self.big])
        defer { server.stop() }
        var configuration = HTTP2Configuration()
        configuration.initialStreamWindowSize = 32_768
        let driver = try SocketDriver(configuration: configuration)
        var stalled: HTTP2StreamID?
        var smallIDs: [HTTP2StreamID] = []
        var heldWhenOthersDone: Int?
        driver.afterRead = { driver in
            let recorder = driver.recorder
            guard let id = stalled else { return }
            if heldWhenOthersDone == nil, smallIDs.allSatisfy({ recorder.ended.contains($0.rawValue) }),
               recorder.bodies[id.rawValue]?.count == 32_768 {
                heldWhenOthersDone = 32_768
                recorder.held = []
                driver.h2.consume(32_768, on: id)
            }
            if recorder.ended.contains(id.rawValue) { driver.h2.shutdown() }
        }
        try driver.run(port: server.port) { driver in
            let id = try driver.h2.openStream(Self.get(server.port, "/big.bin"))
            stalled = id
            driver.recorder.held = [id.rawValue]
            smallIDs = try (0..<10).map { _ in try driver.h2.openStream(Self.get(server.port, "/small.txt")) }
        }
        #expect(!driver.timedOut)
        #expect(heldWhenOthersDone == 32_768)
        #expect(driver.recorder.bodies[stalled!.rawValue] == Self.big)
    }

    @Test("http2_max_concurrent_streams 1: refused streams are retryable; retried, all complete")
    func maxConcurrentOne() throws {
        let server = try NginxH2Server(files: ["small.txt": Self.small], maxConcurrentStreams: 1)
        defer { server.stop() }
        let driver = try SocketDriver()
        var retried: Set<Int32> = []
        driver.afterRead = { driver in
            for (id, error) in driver.recorder.errors where error.isRetryable && !retried.contains(id) {
                retried.insert(id)
                _ = try? driver.h2.openStream(Self.get(server.port, "/small.txt"))
            }
            if driver.recorder.ended.count == 5 { driver.h2.shutdown() }
        }
        try driver.run(port: server.port) { driver in
            for _ in 0..<5 { _ = try driver.h2.openStream(Self.get(server.port, "/small.txt")) }
        }
        #expect(!driver.timedOut)
        #expect(driver.recorder.records.contains(.settings(maxConcurrentStreams: 1)))
        #expect(driver.recorder.ended.count == 5)
        #expect(driver.recorder.errors.values.allSatisfy { $0.isRetryable })
    }
}
