import HTTPTypes
import Testing
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineTesting

/// Steady-state costs of the protocol core, measured per response with the
/// thread-local malloc counter. Release builds only.
@Suite("HTTP allocations", .enabled(if: isOptimizedBuild, "allocation counts are meaningful only with -c release"))
struct HTTPAllocationTests {
    /// A typical keep-alive response: status line, five fields, 1 KiB body.
    static let response: [UInt8] = Array(
        """
        HTTP/1.1 200 OK\r
        Server: nginx/1.22.1\r
        Date: Sat, 01 Jun 2024 12:00:00 GMT\r
        Content-Type: application/octet-stream\r
        Content-Length: 1024\r
        Connection: keep-alive\r
        \r

        """.utf8
    ) + [UInt8](repeating: 0x61, count: 1024)

    /// Parses one response from `bytes`; returns the body length seen.
    static func parseOne(_ parser: inout HTTPResponseParser, _ bytes: UnsafeRawBufferPointer) -> Int {
        parser.expectResponse(to: .get)
        var rest = bytes
        var bodyBytes = 0
        while true {
            guard let (event, consumed) = try? parser.next(rest) else { return -1 }
            rest = UnsafeRawBufferPointer(rebasing: rest[consumed...])
            switch event {
            case .head(let response):
                if response.status.code != 200 { return -1 }
            case .body(let slice):
                bodyBytes += slice.count
            case .end:
                return bodyBytes
            case .needMoreData:
                return -1
            }
        }
    }

    /// Measured: 4 allocations per response. The parser itself allocates
    /// nothing; what remains is what the `HTTPResponse` value needs: the
    /// `HTTPFields` array, `HTTPResponse`'s pseudo-field storage, and the
    /// two field values longer than 15 bytes (`Date`, `Content-Type`),
    /// which Swift strings cannot store inline. Field names that
    /// swift-http-types knows reuse its static names.
    @Test func typicalKeepAliveResponseCostsFourAllocations() {
        var parser = HTTPResponseParser()
        Self.response.withUnsafeBytes { bytes in
            for _ in 0..<100 { _ = Self.parseOne(&parser, bytes) } // warm up
            var total = 0
            let mallocs = AllocationCounter.count {
                for _ in 0..<1_000 { total &+= Self.parseOne(&parser, bytes) }
            }
            #expect(total == 1_024_000)
            #expect(mallocs <= 4 * 1_000, "\(Double(mallocs) / 1_000) allocations per response")
        }
    }

    /// A body-only path costs nothing: a chunked body split into many
    /// chunks allocates nothing per chunk once the head is parsed.
    @Test func bodyBytesAllocateNothing() {
        var parser = HTTPResponseParser()
        parser.expectResponse(to: .get)
        let head = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        let chunk = Array("400;x=y\r\n".utf8) + [UInt8](repeating: 0x62, count: 1024) + Array("\r\n".utf8)
        head.withUnsafeBytes { bytes in _ = try? parser.next(bytes) }
        chunk.withUnsafeBytes { bytes in
            func feed() -> Int {
                var rest = bytes
                var seen = 0
                while let (event, consumed) = try? parser.next(rest) {
                    rest = UnsafeRawBufferPointer(rebasing: rest[consumed...])
                    if case .body(let slice) = event { seen += slice.count }
                    if case .needMoreData = event { break }
                }
                return seen
            }
            for _ in 0..<10 { _ = feed() }
            var total = 0
            let mallocs = AllocationCounter.count {
                for _ in 0..<10_000 { total &+= feed() }
            }
            #expect(mallocs == 0)
            #expect(total == 10_240_000)
        }
    }

    /// Writing a request into a reused buffer allocates nothing.
    @Test func writingARequestAllocatesNothing() throws {
        let target = try HTTPRequestTarget(string: "http://127.0.0.1:8080/bench?n=1")
        var fields = HTTPFields()
        fields[.accept] = "*/*"
        fields[.userAgent] = "UVCombine"
        let request = target.makeRequest(method: .get, headerFields: fields)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(512)
        for _ in 0..<10 {
            buffer.removeAll(keepingCapacity: true)
            try HTTPRequestWriter.append(request, to: &buffer)
        }
        var failures = 0
        let mallocs = AllocationCounter.count {
            for _ in 0..<10_000 {
                buffer.removeAll(keepingCapacity: true)
                do { try HTTPRequestWriter.append(request, to: &buffer) } catch { failures += 1 }
            }
        }
        #expect(failures == 0)
        #expect(mallocs == 0, "\(Double(mallocs) / 10_000) allocations per request")
    }

    /// A keep-alive request through the pool (reuse an idle connection,
    /// write, receive, finish) allocates nothing once the pool's tables
    /// have grown.
    @Test func poolKeepAliveCycleAllocatesNothing() {
        var pool = ConnectionPoolStateMachine()
        let key = ConnectionKey(scheme: .http, host: "127.0.0.1", port: 8080)
        var now = HTTPDeadline(uptimeNanoseconds: 1)
        _ = pool.executeRequest(.init(0), key: key, method: .get, now: now)
        _ = pool.connectionEstablished(.init(1), now: now)
        pool.requestWriteStarted(.init(0))
        pool.responseBytesReceived(.init(0))
        _ = pool.requestFinished(.init(0), keepAlive: true, now: now)
        var executed = 0
        func cycle(_ n: Int) {
            now = now.advanced(by: .microseconds(10))
            let request = ConnectionPoolStateMachine.RequestID(n)
            if case .execute = pool.executeRequest(request, key: key, method: .get, now: now).request { executed += 1 }
            pool.requestWriteStarted(request)
            pool.responseBytesReceived(request)
            _ = pool.requestFinished(request, keepAlive: true, now: now)
        }
        for n in 1...100 { cycle(n) }
        let mallocs = AllocationCounter.count {
            for n in 101...10_100 { cycle(n) }
        }
        #expect(executed == 10_100)
        #expect(mallocs == 0, "\(Double(mallocs) / 10_000) allocations per request")
    }

    /// Deciding on a final (non-redirect) response and running the task's
    /// timeouts through an exchange allocate nothing.
    @Test func redirectDecisionAndTimeoutsAllocateNothingPerResponse() throws {
        let target = try HTTPRequestTarget(string: "http://127.0.0.1:8080/")
        let request = target.makeRequest()
        let response = HTTPResponse(status: .ok)
        var delivered = 0
        func task(_ n: Int) {
            let start = HTTPDeadline(uptimeNanoseconds: UInt64(n) * 1_000)
            var redirects = RedirectStateMachine(policy: RedirectPolicy(), target: target, method: .get)
            var timeouts = RequestTimeoutStateMachine(timeouts: RequestTimeouts(), now: start)
            _ = timeouts.exchangeStarted(now: start)
            timeouts.activity(now: start.advanced(by: .microseconds(5)))
            if redirects.decide(response: response, request: request) == .deliver { delivered += 1 }
            _ = timeouts.finished()
        }
        for n in 0..<100 { task(n) }
        let mallocs = AllocationCounter.count {
            for n in 100..<10_100 { task(n) }
        }
        #expect(delivered == 10_100)
        #expect(mallocs == 0, "\(Double(mallocs) / 10_000) allocations per task")
    }
}
