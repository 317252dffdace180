import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// Runs `loop` until `condition` holds (checked every 2 ms) or `limit`
/// passed; returns whether it held. The polling timer keeps the loop alive,
/// so this also waits for work that does not (idle pooled connections).
func runLoop(_ loop: UVLoop, until condition: @escaping () -> Bool,
             limit: UVLoop.SchedulerTimeType.Stride = .seconds(5)) -> Bool {
    if condition() { return true }
    let deadline = loop.now.advanced(by: limit)
    var held = false
    var poll: (any Cancellable)?
    poll = loop.schedule(after: loop.now, interval: .milliseconds(2)) {
        if condition() {
            held = true
        } else if loop.now < deadline {
            return
        }
        poll?.cancel()
        poll = nil
    }
    _ = loop.run()
    return held
}

/// The request phases the fault matrix covers (issue 10, "Fault matrix").
enum RequestPhase: String, Sendable, CaseIterable {
    case connecting, writing, awaitingHead, readingBody, idleInPool
}

/// One cell of the fault matrix: a `TestHTTPServer` fault striking a data
/// task in one phase, and what the session must report.
struct FaultCell: Sendable, CustomTestStringConvertible {
    enum Expected: Sendable {
        /// The task fails with exactly this code and detail.
        case error(UVURLError.Code, detail: String, underlying: String? = nil, timeout: UVURLError.TimeoutKind? = nil)
        /// The task delivers this status and body length.
        case response(status: Int, bodyCount: Int)
    }

    let phase: RequestPhase
    let name: String
    /// The server misbehaving for the whole server (`refuse`) or on `/fault`.
    let serverFault: TestHTTPServer.Fault?
    let routeFault: TestHTTPServer.Fault?
    /// The request body (a POST when non-nil).
    let body: Int?
    let expected: Expected
    /// Whether the server still answers `/ok` afterwards.
    let serverSurvives: Bool

    init(_ phase: RequestPhase, _ name: String, server: TestHTTPServer.Fault? = nil, route: TestHTTPServer.Fault? = nil,
         body: Int? = nil, expected: Expected, serverSurvives: Bool = true) {
        self.phase = phase
        self.name = name
        serverFault = server
        routeFault = route
        self.body = body
        self.expected = expected
        self.serverSurvives = serverSurvives
    }

    var testDescription: String { "\(phase.rawValue) × \(name)" }
}

let truncatedBody = "truncated body: connection closed before Content-Length bytes arrived"

/// The matrix. Its rows are documented in docs/fault-matrix.md; keep both
/// in step.
let faultMatrix: [FaultCell] = [
    FaultCell(.connecting, "refuse (nobody listens)", server: .refuse,
              expected: .error(.cannotConnectToHost, detail: "connection failed", underlying: "UV_ECONNREFUSED"),
              serverSurvives: false),
    // The test server refuses a body over 64 MiB from its Content-Length,
    // answering 413 and closing while the client is still writing: the
    // response is delivered, the half-written connection is not reused.
    FaultCell(.writing, "answers 413 and closes mid-request", route: .stall, body: 64 * 1024 * 1024 + 1,
              expected: .response(status: 413, bodyCount: "body of \(64 * 1024 * 1024 + 1) bytes".utf8.count)),
    FaultCell(.awaitingHead, "closes without a byte", route: .refuse,
              expected: .error(.networkConnectionLost, detail: "connection closed before the response began"),
              serverSurvives: false),
    FaultCell(.awaitingHead, "stall", route: .stall,
              expected: .error(.timedOut, detail: "idle read timeout", timeout: .idleRead)),
    FaultCell(.awaitingHead, "malformedStatusLine", route: .malformedStatusLine,
              expected: .error(.badServerResponse, detail: "malformed status code")),
    FaultCell(.awaitingHead, "oversizedHeaders(128 KiB)", route: .oversizedHeaders(bytes: 128 * 1024),
              expected: .error(.badServerResponse, detail: "header section exceeds 65536 bytes")),
    FaultCell(.awaitingHead, "infiniteRedirect", route: .infiniteRedirect,
              expected: .error(.httpTooManyRedirects, detail: "more than 5 redirects")),
    FaultCell(.readingBody, "closeAfterHead", route: .closeAfterHead,
              expected: .error(.networkConnectionLost, detail: truncatedBody)),
    FaultCell(.readingBody, "closeMidBody", route: .closeMidBody,
              expected: .error(.networkConnectionLost, detail: truncatedBody)),
    FaultCell(.readingBody, "contentLengthMismatch", route: .contentLengthMismatch,
              expected: .error(.networkConnectionLost, detail: truncatedBody)),
    FaultCell(.readingBody, "slowBody stalls past the idle read timeout",
              route: .slowBody(chunks: 2, delay: .milliseconds(600)),
              expected: .error(.timedOut, detail: "idle read timeout", timeout: .idleRead)),
    FaultCell(.readingBody, "chunked, one byte per chunk", route: .chunked(chunkSize: 1),
              expected: .response(status: 200, bodyCount: 1024)),
    FaultCell(.idleInPool, "keepAliveClosedByServer", route: .keepAliveClosedByServer,
              expected: .response(status: 200, bodyCount: 1024)),
]

/// Faults × request phases on real sockets: each cell gives its typed
/// error (code and detail), the pool keeps no dead connection, and the
/// next request on the same session succeeds on a fresh connection.
/// Namespace of the reliability suites (issue 10), so that
/// `swift test --filter Reliability` selects them all.
enum Reliability {}

extension Reliability {
@Suite("Reliability: fault matrix")
struct FaultMatrixTests {
    @Test("fault × phase: typed error, no dead pooled connection, the session keeps working",
          arguments: faultMatrix)
    func cell(_ cell: FaultCell) throws {
        let healthy = try TestHTTPServer(routes: ["/ok": .text("ok")])
        defer { healthy.shutdown() }
        let server: TestHTTPServer
        if let fault = cell.serverFault {
            server = try TestHTTPServer(fault: fault)
        } else {
            server = try TestHTTPServer(routes: ["/fault": .fault(cell.routeFault!), "/ok": .text("ok")])
        }
        defer { server.shutdown() }
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration()
            configuration.idleReadTimeout = .milliseconds(300)
            let session = UVURLSession(loop: loop, configuration: configuration)
            let publisher: UVURLSession.DataTaskPublisher
            if let length = cell.body {
                var request = HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1:\(server.port)", path: "/fault")
                request.headerFields[.contentType] = "application/octet-stream"
                publisher = session.dataTaskPublisher(for: request, body: Data(count: length))
            } else {
                publisher = session.dataTaskPublisher(for: server.url("/fault"))
            }
            let outcome = fetch(publisher, on: loop)
            switch cell.expected {
            case .error(let code, let detail, let underlying, let timeout):
                let error = outcome?.error
                #expect(error?.code == code, "\(String(describing: outcome))")
                #expect(error?.detail == detail)
                if let underlying { #expect(error?.underlyingErrorName == underlying) }
                #expect(error?.timeoutKind == timeout)
            case .response(let status, let bodyCount):
                #expect(outcome?.status == status, "\(String(describing: outcome?.error))")
                #expect((try? outcome?.get().data.count) == bodyCount)
            }
            #expect(session.engine.runningTaskCount == 0)

            // No dead connection stays pooled: a failed exchange closed its
            // connection at once; a closed idle one goes when its end of
            // file arrives.
            if case .error = cell.expected {
                #expect(session.engine.connectionCount == 0, "the failed connection was closed")
            }
            #expect(runLoop(loop, until: { session.engine.connectionCount == 0 }) || cell.phase != .idleInPool,
                    "the connection the server closed left the pool")
            if cell.phase == .idleInPool || cell.phase == .writing {
                #expect(session.engine.connectionCount == 0)
            }

            // The next request on the same session succeeds: on the same
            // server (on a new connection) while it listens, and elsewhere.
            if cell.serverSurvives {
                // After a failure or a closed connection: a fresh one. A
                // response that left its connection usable: that one.
                let fresh: Bool
                if case .error = cell.expected { fresh = true } else { fresh = cell.phase != .readingBody }
                let connectionsBefore = server.connectionCount
                #expect(fetch(session.dataTaskPublisher(for: server.url("/ok")), on: loop)?.text == "ok")
                #expect(server.connectionCount == connectionsBefore + (fresh ? 1 : 0),
                        fresh ? "a fresh connection, not the dead one" : "the healthy connection reused")
                #expect(session.engine.connectionCount == 1, "one idle keep-alive connection")
            }
            #expect(fetch(session.dataTaskPublisher(for: healthy.url("/ok")), on: loop)?.text == "ok")
            #expect(session.engine.runningTaskCount == 0)
        }
    }

    @Test("idle in pool × the client's idle timeout: the connection is closed and forgotten; the next request opens another")
    func idleTimeoutInPool() throws {
        let server = try TestHTTPServer(routes: ["/ok": .text("ok")])
        defer { server.shutdown() }
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration()
            configuration.connectionIdleTimeout = .milliseconds(50)
            let session = UVURLSession(loop: loop, configuration: configuration)
            #expect(fetch(session.dataTaskPublisher(for: server.url("/ok")), on: loop)?.text == "ok")
            #expect(session.engine.connectionCount == 1)
            #expect(runLoop(loop, until: { session.engine.connectionCount == 0 }), "the idle timeout closed it")
            #expect(fetch(session.dataTaskPublisher(for: server.url("/ok")), on: loop)?.text == "ok")
            #expect(server.connectionCount == 2)
        }
    }

    @Test("idle in pool × the server closes before the request is reused: the stale connection is retried on a fresh one")
    func staleConnectionRetried() throws {
        // The server closes each connection right after its response; the
        // second request may find the connection still pooled (its end of
        // file not yet read) and must not fail because of it.
        let server = try TestHTTPServer(routes: ["/ok": .fault(.keepAliveClosedByServer)])
        defer { server.shutdown() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            for _ in 0..<20 {
                let outcome = fetch(session.dataTaskPublisher(for: server.url("/ok")), on: loop)
                #expect(outcome?.status == 200, "\(String(describing: outcome?.error))")
            }
            #expect(server.requestCount == 20)
            #expect(runLoop(loop, until: { session.engine.connectionCount == 0 }))
        }
    }
}
}
