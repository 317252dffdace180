import HTTPTypes
import Testing
import UVCombineHTTP2
import UVCombineHTTPCore

/// The client connection on a real socket (UVCombineLoop's TCP) against
/// nghttp2's `nghttpd --no-tls` (h2c with prior knowledge), a server
/// nobody here wrote.
@Suite("HTTP/2 against nghttpd", .serialized, .enabled(if: NghttpdServer.executable != nil, "nghttpd is not installed (Debian's nghttp2-server; .ci/run installs it)"))
struct HTTP2NghttpdTests {
    static let small = Array(repeating: UInt8(ascii: "s"), count: 1024)
    static let big = (0..<(2 << 20)).map { UInt8($0 % 253) }

    static func get(_ port: Int, _ path: String) -> HTTPRequest {
        HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(port)", path: path)
    }

    @Test("100 concurrent streams on one connection, a 404 as a value")
    func hundredConcurrent() throws {
        let server = try NghttpdServer(files: ["small.txt": Self.small])
        defer { server.stop() }
        let driver = try SocketDriver()
        var ids: [HTTP2StreamID] = []
        var missing: HTTP2StreamID?
        driver.afterRead = { driver in
            if driver.recorder.ended.count == 101 { driver.h2.shutdown() }
        }
        try driver.run(port: server.port) { driver in
            ids = try (0..<100).map { _ in try driver.h2.openStream(Self.get(server.port, "/small.txt")) }
            missing = try driver.h2.openStream(Self.get(server.port, "/missing"))
        }
        #expect(!driver.timedOut)
        #expect(driver.recorder.ended.count == 101)
        for id in ids {
            #expect(driver.recorder.heads[id.rawValue]?.status == .ok)
            #expect(driver.recorder.bodies[id.rawValue] == Self.small)
        }
        #expect(driver.recorder.heads[missing!.rawValue]?.status == .notFound)
        #expect(driver.recorder.failed.isEmpty)
    }

    @Test("a stalled stream holds only its window while 20 others complete; released, it completes")
    func stalledStreamDoesNotBlockOthers() throws {
        let server = try NghttpdServer(files: ["small.txt": Self.small, "big.bin": Self.big])
        defer { server.stop() }
        var configuration = HTTP2Configuration()
        configuration.initialStreamWindowSize = 65_536
        let driver = try SocketDriver(configuration: configuration)
        var stalled: HTTP2StreamID?
        var heldBytes = 0
        var smallIDs: [HTTP2StreamID] = []
        driver.afterRead = { driver in
            let recorder = driver.recorder
            let smallsDone = smallIDs.allSatisfy { recorder.ended.contains($0.rawValue) }
            if smallsDone, let id = stalled, recorder.held.contains(id.rawValue),
               recorder.bodies[id.rawValue]?.count == 65_536 {
                heldBytes = recorder.bodies[id.rawValue]?.count ?? 0
                recorder.held = []
                driver.h2.consume(heldBytes, on: id)
            }
            if let id = stalled, recorder.ended.contains(id.rawValue) { driver.h2.shutdown() }
        }
        try driver.run(port: server.port) { driver in
            let id = try driver.h2.openStream(Self.get(server.port, "/big.bin"))
            stalled = id
            driver.recorder.held = [id.rawValue]
            smallIDs = try (0..<20).map { _ in try driver.h2.openStream(Self.get(server.port, "/small.txt")) }
        }
        #expect(!driver.timedOut)
        #expect(heldBytes == 65_536)
        #expect(driver.recorder.bodies[stalled!.rawValue] == Self.big)
        for id in smallIDs { #expect(driver.recorder.bodies[id.rawValue] == Self.small) }
    }

    @Test("MAX_CONCURRENT_STREAMS 1 (nghttpd -m 1): streams sent before SETTINGS come back retryable; retried, all 10 complete")
    func maxConcurrentOne() throws {
        let server = try NghttpdServer(files: ["small.txt": Self.small], arguments: ["-m", "1"])
        defer { server.stop() }
        let driver = try SocketDriver()
        var retried: Set<Int32> = []
        var retryable = 0
        driver.afterRead = { driver in
            // What the pool will do: a retryable failure goes out again.
            for (id, error) in driver.recorder.errors where error.isRetryable && !retried.contains(id) {
                retried.insert(id)
                retryable += 1
                _ = try? driver.h2.openStream(Self.get(server.port, "/small.txt"))
            }
            if driver.recorder.ended.count == 10 { driver.h2.shutdown() }
        }
        try driver.run(port: server.port) { driver in
            // Prior knowledge: all ten leave before the server's SETTINGS.
            for _ in 0..<10 { _ = try driver.h2.openStream(Self.get(server.port, "/small.txt")) }
        }
        #expect(!driver.timedOut)
        #expect(driver.recorder.records.contains(.settings(maxConcurrentStreams: 1)))
        #expect(driver.recorder.ended.count == 10)
        #expect(driver.recorder.errors.count == retryable)
        #expect(retryable > 0)
        for id in driver.recorder.ended { #expect(driver.recorder.bodies[id] == Self.small) }
    }

    @Test("an upload larger than the window (nghttpd --echo-upload)")
    func upload() throws {
        let server = try NghttpdServer(files: [:], arguments: ["--echo-upload"])
        defer { server.stop() }
        let driver = try SocketDriver()
        let body = (0..<200_000).map { UInt8($0 % 199) }
        driver.afterRead = { driver in
            if driver.recorder.ended.count == 1 { driver.h2.shutdown() }
        }
        try driver.run(port: server.port) { driver in
            _ = try driver.h2.openStream(HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1", path: "/echo"),
                                         body: .bytes(body))
        }
        #expect(!driver.timedOut)
        #expect(driver.recorder.heads[1]?.status == .ok)
        #expect(driver.recorder.bodies[1] == body)
    }

    @Test("PING round trip over the socket")
    func ping() throws {
        let server = try NghttpdServer(files: [:])
        defer { server.stop() }
        let driver = try SocketDriver()
        driver.afterRead = { driver in
            if driver.recorder.records.contains(where: { if case .ping = $0 { true } else { false } }) { driver.h2.shutdown() }
        }
        try driver.run(port: server.port) { driver in driver.h2.sendPing(now: driver.now) }
        #expect(!driver.timedOut)
        #expect(driver.recorder.records.contains { if case .ping(let rtt) = $0 { rtt > 0 && rtt < 5_000_000_000 } else { false } })
    }

    @Test("measure: 1000 GETs on one connection, 1 and 100 in flight (printed for docs/http2.md)")
    func measure() throws {
        let server = try NghttpdServer(files: ["small.txt": Self.small])
        defer { server.stop() }
        let total = 1000
        for inFlight in [1, 100] {
            let driver = try SocketDriver()
            driver.recorder.keepsRecords = false
            var sent = 0
            func topUp(_ driver: SocketDriver) {
                while sent < total && sent - driver.recorder.endCount < inFlight {
                    _ = try? driver.h2.openStream(Self.get(server.port, "/small.txt"))
                    sent += 1
                }
            }
            driver.afterRead = { driver in
                if driver.recorder.endCount == total { driver.h2.shutdown() } else { topUp(driver) }
            }
            let clock = ContinuousClock()
            var begin = clock.now
            var cpuBegin = HTTP2CostTests.threadCPU()
            try driver.run(port: server.port) { driver in
                begin = clock.now
                cpuBegin = HTTP2CostTests.threadCPU()
                topUp(driver)
            }
            let elapsed = clock.now - begin
            let cpu = HTTP2CostTests.threadCPU() - cpuBegin
            #expect(driver.recorder.endCount == total)
            print("HTTP2 measure: \(total) GETs of 1 KiB against nghttpd, \(inFlight) in flight: wall \(elapsed / total), client CPU \(cpu / total) per request")
        }
    }
}
