#if Logging
import HTTPTypes
import InMemoryLogging
import Logging
import Testing
import UVCombineCore
import UVCombineHTTPClient
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// A session whose logger keeps its lines in memory at `level`.
private func loggingSession(on loop: UVLoop, level: Logger.Level) -> (UVURLSession, InMemoryLogHandler) {
    let handler = InMemoryLogHandler()
    var logger = Logger(label: "uvcombine.session.test") { _ in handler }
    logger.logLevel = level
    var configuration = UVURLSession.Configuration()
    configuration.logger = logger
    configuration.httpCookieStorage = nil
    return (UVURLSession(loop: loop, configuration: configuration), handler)
}

/// A GET of `path` on 127.0.0.1:`port`.
private func get(_ port: Int, _ path: String) -> HTTPRequest {
    HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(port)", path: path)
}

/// Runs one task to its end on `loop`; its status or its error code.
/// `whileRunning` runs when the value arrives.
@discardableResult
private func run(_ session: UVURLSession, _ request: HTTPRequest, on loop: UVLoop,
                 whileRunning: @escaping () -> Void = {}) -> Result<Int, UVURLError> {
    var outcome: Result<Int, UVURLError> = .failure(UVURLError(.cancelled, detail: "no outcome"))
    let cancellable = session.bodyTaskPublisher(for: request, bytes: nil).sink(receiveCompletion: { completion in
        if case .failure(let error) = completion { outcome = .failure(error) }
    }, receiveValue: { value in
        whileRunning()
        outcome = .success(value.response.status.code)
    })
    withExtendedLifetime(cancellable) { _ = loop.run() }
    return outcome
}

/// Runs `body` with a fresh loop, closed cleanly afterwards.
private func withLoop(_ body: (UVLoop) throws -> Void) throws {
    let loop = try UVLoop()
    try body(loop)
    loop.run()
    try loop.close()
}

private extension InMemoryLogHandler.Entry {
    var text: String { message.description }
    var requestID: String? {
        if case .string(let id) = metadata["request-id"] { return id }
        return nil
    }
}

@Suite("Session logging (trait Logging): the lifecycle at debug and trace, a request id on every line")
struct SessionLoggingTests {
    @Test("debug: start, connection opened then reused, heads, completion; one request id; no trace lines")
    func redirectLifecycle() throws {
        let server = try TestHTTPServer(routes: [
            "/from": TestHTTPServer.Response(status: .found, headerFields: [.location: "/to", .contentLength: "0"]),
            "/to": .text("logged"),
        ])
        defer { server.shutdown() }
        var handler: InMemoryLogHandler?
        try withLoop { loop in
            let (session, memory) = loggingSession(on: loop, level: .debug)
            handler = memory
            let status = try run(session, get(server.port, "/from"), on: loop).get()
            #expect(status == 200)
        }
        let entries = try #require(handler).entries
        let lifecycle = entries.filter { $0.text != "connection closed" }
        #expect(lifecycle.map(\.text) == [
            "request started", "connection opened", "response head",
            "request started", "connection reused", "response head",
            "request completed",
        ])
        #expect(entries.allSatisfy { $0.level == .debug })
        let ids = Set(lifecycle.map(\.requestID))
        #expect(ids.count == 1 && ids.first! != nil)
        #expect(lifecycle[0].metadata["url"] == .string("http://127.0.0.1:\(server.port)/from"))
        #expect(lifecycle[0].metadata["method"] == .string("GET"))
        #expect(lifecycle[3].metadata["redirect"] == .string("1"))
        #expect(lifecycle[1].metadata["remote"] == .string("127.0.0.1:\(server.port)"))
        #expect(lifecycle[2].metadata["status"] == .string("302"))
        #expect(lifecycle[5].metadata["status"] == .string("200"))
        #expect(lifecycle[6].metadata["status"] == .string("200"))
    }

    @Test("a failure is logged with its error and code")
    func failure() throws {
        let refused = try TestHTTPServer(routes: [:])
        let port = refused.port
        refused.shutdown()
        var handler: InMemoryLogHandler?
        try withLoop { loop in
            let (session, memory) = loggingSession(on: loop, level: .debug)
            handler = memory
            let outcome = run(session, get(port, "/"), on: loop)
            #expect(throws: UVURLError.self) { try outcome.get() }
        }
        let entries = try #require(handler).entries
        let last = try #require(entries.last { $0.text == "request failed" })
        #expect(last.metadata["code"] == .string("\(UVURLError.Code.cannotConnectToHost)"))
        if case .string(let error) = last.metadata["error"] {
            #expect(!error.isEmpty)
        } else {
            Issue.record("no error metadata")
        }
        #expect(last.requestID != nil && last.requestID == entries.first?.requestID)
    }

    @Test("two tasks, two request ids")
    func distinctIDs() throws {
        let server = try TestHTTPServer(routes: ["/": .text("x")])
        defer { server.shutdown() }
        var handler: InMemoryLogHandler?
        try withLoop { loop in
            let (session, memory) = loggingSession(on: loop, level: .debug)
            handler = memory
            run(session, get(server.port, "/"), on: loop)
            run(session, get(server.port, "/"), on: loop)
        }
        let completed = try #require(handler).entries.filter { $0.text == "request completed" }
        #expect(completed.count == 2)
        #expect(completed[0].requestID != completed[1].requestID)
    }

    @Test("trace: the steps below the lifecycle too (writes, reads, response end), each with the request id")
    func traceSteps() throws {
        let server = try TestHTTPServer(routes: ["/": .text("traced")])
        defer { server.shutdown() }
        var handler: InMemoryLogHandler?
        try withLoop { loop in
            let (session, memory) = loggingSession(on: loop, level: .trace)
            handler = memory
            run(session, get(server.port, "/"), on: loop)
        }
        let entries = try #require(handler).entries.filter { $0.text != "connection closed" }
        let traced = entries.filter { $0.level == .trace }.map(\.text)
        for step in ["request head written", "request write completed", "response started", "received", "response ended"] {
            #expect(traced.contains(step), "\(step) missing")
        }
        #expect(Set(entries.map(\.requestID)).count == 1)
    }

    @Test("above debug: no line, and no task gets a recorder (nothing allocated for logging)")
    func offAboveDebug() throws {
        let server = try TestHTTPServer(routes: ["/": .text("quiet")])
        defer { server.shutdown() }
        var handler: InMemoryLogHandler?
        try withLoop { loop in
            let (session, memory) = loggingSession(on: loop, level: .info)
            handler = memory
            var sawRecorder = true
            run(session, get(server.port, "/"), on: loop) {
                sawRecorder = session.engine.tasksCollectingMetrics > 0
            }
            #expect(!sawRecorder)
        }
        #expect(try #require(handler).entries.isEmpty)
    }

    @Test("a connection the pool closes is logged with its exchanges")
    func connectionClosed() throws {
        let server = try TestHTTPServer(routes: [
            "/": TestHTTPServer.Response(status: .ok, headerFields: [.connection: "close", .contentLength: "1"],
                                         body: Array("x".utf8)),
        ])
        defer { server.shutdown() }
        var handler: InMemoryLogHandler?
        try withLoop { loop in
            let (session, memory) = loggingSession(on: loop, level: .debug)
            handler = memory
            run(session, get(server.port, "/"), on: loop)
        }
        let closed = try #require(handler).entries.filter { $0.text == "connection closed" }
        #expect(closed.count == 1)
        #expect(closed.first?.metadata["exchanges"] == .string("1"))
    }
}
#endif
