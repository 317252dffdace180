import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// Runs one data task to completion on `loop` and returns its outcome.
func fetch(_ publisher: UVURLSession.DataTaskPublisher, on loop: UVLoop) -> Result<(data: Data, response: HTTPResponse), UVURLError>? {
    var outcome: Result<(data: Data, response: HTTPResponse), UVURLError>?
    let cancellable = publisher.sink(receiveCompletion: { completion in
        if case .failure(let error) = completion { outcome = .failure(error) }
    }, receiveValue: { outcome = .success($0) })
    withExtendedLifetime(cancellable) { _ = loop.run() }
    return outcome
}

extension Result where Success == (data: Data, response: HTTPResponse), Failure == UVURLError {
    var text: String? {
        if case .success(let value) = self { return String(decoding: value.data, as: UTF8.self) }
        return nil
    }
    var status: Int? {
        if case .success(let value) = self { return value.response.status.code }
        return nil
    }
    var error: UVURLError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// What the session reports for each of the test server's faults (the
/// table in docs/url-session.md).
enum FaultOutcome: Sendable, CustomStringConvertible {
    case error(UVURLError.Code, detail: String?)
    case body(Int)

    var description: String {
        switch self {
        case .error(let code, let detail): "\(code) \(detail ?? "")"
        case .body(let count): "\(count) bytes"
        }
    }
}

let faultOutcomes: [(TestHTTPServer.Fault, FaultOutcome)] = [
    (.closeAfterHead, .error(.networkConnectionLost, detail: "truncated body: connection closed before Content-Length bytes arrived")),
    (.closeMidBody, .error(.networkConnectionLost, detail: "truncated body: connection closed before Content-Length bytes arrived")),
    (.contentLengthMismatch, .error(.networkConnectionLost, detail: "truncated body: connection closed before Content-Length bytes arrived")),
    (.chunked(chunkSize: 7), .body(1024)),
    (.slowBody(chunks: 3, delay: .milliseconds(5)), .body(1024)),
    (.malformedStatusLine, .error(.badServerResponse, detail: "malformed status code")),
    (.oversizedHeaders(bytes: 128 * 1024), .error(.badServerResponse, detail: nil)),
    (.infiniteRedirect, .error(.httpTooManyRedirects, detail: "more than 5 redirects")),
    (.keepAliveClosedByServer, .body(1024)),
    (.stall, .error(.timedOut, detail: "idle read timeout")),
    (.refuse, .error(.networkConnectionLost, detail: "connection closed before the response began")),
]

/// The session on real sockets against `TestHTTPServer` (on its own loop
/// thread), the client loop run by the test thread.
@Suite("UVURLSession on sockets")
struct SessionSocketTests {
    @Test("keep-alive: sequential requests on one connection; an idle connection does not keep run() alive")
    func keepAlive() throws {
        let server = try TestHTTPServer(routes: ["/hello": .text("hello")])
        defer { server.shutdown() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            for _ in 0..<5 {
                let start = loop.now
                let outcome = fetch(session.dataTaskPublisher(for: server.url("/hello")), on: loop)
                #expect(outcome?.text == "hello")
                #expect(start.distance(to: loop.now) < .seconds(10),
                        "run() returned with the connection idle in the pool (its idle timeout is 60 s)")
            }
            #expect(server.connectionCount == 1)
            #expect(server.requestCount == 5)
            #expect(server.requests.first?.headerFields[HTTPField.Name("Host")!] == "127.0.0.1:\(server.port)")
        }
    }

    @Test("every fault gives its documented typed error, and the next request on the session succeeds",
          arguments: faultOutcomes.indices)
    func faults(index: Int) throws {
        let (fault, expected) = faultOutcomes[index]
        let healthy = try TestHTTPServer(routes: ["/ok": .text("ok")])
        defer { healthy.shutdown() }
        let server = try TestHTTPServer(routes: ["/fault": .fault(fault), "/ok": .text("ok")])
        defer { server.shutdown() }
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration()
            configuration.idleReadTimeout = .milliseconds(300)
            let session = UVURLSession(loop: loop, configuration: configuration)
            let outcome = fetch(session.dataTaskPublisher(for: server.url("/fault")), on: loop)
            switch expected {
            case .error(let code, let detail):
                #expect(outcome?.error?.code == code, "\(fault): \(String(describing: outcome?.error))")
                if let detail { #expect(outcome?.error?.detail == detail, "\(fault)") }
                if fault == .stall { #expect(outcome?.error?.timeoutKind == .idleRead) }
            case .body(let count):
                #expect(outcome?.status == 200, "\(fault): \(String(describing: outcome?.error))")
                #expect((try? outcome?.get().data.count) == count)
            }
            // The session keeps working: on the same server when it still
            // listens, and on another server in any case.
            if fault != .refuse {
                #expect(fetch(session.dataTaskPublisher(for: server.url("/ok")), on: loop)?.text == "ok", "\(fault)")
            }
            #expect(fetch(session.dataTaskPublisher(for: healthy.url("/ok")), on: loop)?.text == "ok", "\(fault)")
        }
    }

    @Test("IPv6: a bracketed literal host connects over ::1 and sends Host with brackets")
    func ipv6Literal() throws {
        let server = try TestHTTPServer(host: "::1", routes: ["/six": .text("six")])
        defer { server.shutdown() }
        #expect(server.url("/six").absoluteString == "http://[::1]:\(server.port)/six")
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            let outcome = fetch(session.dataTaskPublisher(for: server.url("/six")), on: loop)
            #expect(outcome?.text == "six")
            #expect(server.requests.first?.headerFields[HTTPField.Name("Host")!] == "[::1]:\(server.port)")
        }
    }

    @Test("a refusing server: cannotConnectToHost with UV_ECONNREFUSED")
    func refusedConnection() throws {
        let server = try TestHTTPServer(fault: .refuse)
        defer { server.shutdown() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            let error = fetch(session.dataTaskPublisher(for: server.url("/")), on: loop)?.error
            #expect(error?.code == .cannotConnectToHost)
            #expect(error?.underlyingErrorName == "UV_ECONNREFUSED")
        }
    }

    @Test("an unknown host: cannotFindHost")
    func unknownHost() {
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            let error = fetch(session.dataTaskPublisher(for: URL(string: "http://nonexistent.invalid/")!), on: loop)?.error
            #expect(error?.code == .cannotFindHost)
            #expect(error?.underlyingErrorName?.hasPrefix("UV_EAI_") == true)
        }
    }

    @Test("the per-host limit holds on real connections; the queue drains in order")
    func perHostLimit() throws {
        let server = try TestHTTPServer(routes: ["/slow": .fault(.slowBody(chunks: 2, delay: .milliseconds(10)))])
        defer { server.shutdown() }
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration()
            configuration.maximumConnectionsPerHost = 2
            let session = UVURLSession(loop: loop, configuration: configuration)
            var finished = 0
            let cancellables = (0..<6).map { _ in
                session.dataTaskPublisher(for: server.url("/slow"))
                    .sink(receiveCompletion: { if $0 == .finished { finished += 1 } }, receiveValue: { _ in })
            }
            // The optimiser may end a local's lifetime at its last use, and
            // a released AnyCancellable cancels: keep them across run().
            withExtendedLifetime(cancellables) { _ = loop.run() }
            #expect(finished == 6)
            #expect(server.connectionCount == 2)
        }
    }

    @Test("cancel mid-request closes the connection; the next request gets a new one")
    func cancelMidRequest() throws {
        let server = try TestHTTPServer(routes: ["/stall": .fault(.stall), "/ok": .text("ok")])
        defer { server.shutdown() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            var received = 0
            let stalled = session.dataTaskPublisher(for: server.url("/stall"))
                .sink(receiveCompletion: { _ in received += 1 }, receiveValue: { _ in received += 1 })
            // Cancel once the request reached the server.
            var poll: (any Cancellable)?
            poll = loop.schedule(after: loop.now, interval: .milliseconds(2)) {
                if server.requestCount == 1 {
                    stalled.cancel()
                    poll?.cancel()
                }
            }
            loop.run()
            #expect(received == 0)
            #expect(fetch(session.dataTaskPublisher(for: server.url("/ok")), on: loop)?.text == "ok")
            #expect(server.connectionCount == 2)
        }
    }

    @Test("backpressure: a stalled streaming subscriber holds at most one read buffer; the server's send queue fills")
    func backpressure() throws {
        withRealLoop { loop in
            let body = pseudoRandomBytes(32 * 1024 * 1024, seed: 3)
            let bulk = try! BulkServer(loop: loop, body: body)
            let session = UVURLSession(loop: loop)
            let tracker = PartsTracker(initialDemand: .max(3))
            session.bytesPublisher(for: URL(string: "http://127.0.0.1:\(bulk.port)/bulk")!).subscribe(tracker)
            // Let the transfer run into the stall. The server's pending
            // write keeps the loop alive while the client reads nothing, so
            // run() would not return on its own: stop it.
            loop.schedule(after: loop.now.advanced(by: .milliseconds(300))) { loop.stop() }
            _ = loop.run()
            #expect(tracker.values.count == 3, "the head and two parts, then no demand")
            #expect(session.engine.readingConnectionCount == 0, "reading stopped")
            #expect(session.engine.heldResponseByteCount <= 64 * 1024, "at most one read buffer held")
            #expect(bulk.queuedBytes > 16 * 1024 * 1024, "the server could not send most of the body")

            // Demand again: everything arrives, byte for byte.
            tracker.request(.unlimited)
            loop.run()
            #expect(tracker.completion == .finished)
            var received = Data()
            for case .body(let chunk) in tracker.values { received.append(chunk) }
            #expect(received == Data(body))
            bulk.close()
        }
    }
}

/// A server on the client's loop that answers one request with a large
/// body written in one go, so a test can watch its write queue.
final class BulkServer: UVTCPConnectionHandler {
    let port: Int
    private var listener: UVTCPListener?
    private var connection: UVTCPConnection?
    private let response: [UInt8]

    convenience init(loop: UVLoop, body: [UInt8]) throws {
        try self.init(loop: loop, response: Array("HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body)
    }

    /// A server that answers with `response`, head and body.
    init(loop: UVLoop, response: [UInt8]) throws {
        self.response = response
        let link = Link()
        let listener = try UVTCP.listen(host: "127.0.0.1", port: 0, on: loop) { connection in
            link.server?.accept(connection)
        }
        port = listener.port
        self.listener = listener
        link.server = self
    }

    private final class Link {
        weak var server: BulkServer?
    }

    private func accept(_ connection: UVTCPConnection) {
        // One connection: stop listening, so the loop can go idle.
        listener?.close()
        listener = nil
        self.connection = connection
        connection.handler = self
        connection.startReading()
        // Only the client's work (and the writes in flight) keep the loop running.
        connection.keepsLoopAlive = false
    }

    /// Bytes written but not yet taken by the kernel.
    var queuedBytes: Int { connection.map { $0.isClosed ? 0 : $0.writeQueueSize } ?? 0 }

    func connection(_ connection: UVTCPConnection, didRead bytes: UnsafeRawBufferPointer) {
        // The request is small: answer on its first bytes.
        if connection.pendingWriteCount == 0 { connection.write(response) }
    }

    func connection(_ connection: UVTCPConnection, didEndWith error: UVTCPError?) {
        connection.close()
    }

    func close() {
        connection?.close()
        listener?.close()
    }
}
