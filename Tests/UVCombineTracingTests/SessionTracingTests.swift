#if Tracing
import HTTPTypes
import InMemoryTracing
import Testing
import Tracing
import UVCombineCore
import UVCombineHTTPClient
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// A session tracing into `tracer` (no global bootstrap: each test has its
/// own tracer).
private func tracingSession(on loop: UVLoop, _ tracer: (any Tracer)?) -> UVURLSession {
    var configuration = UVURLSession.Configuration()
    configuration.tracer = tracer
    configuration.httpCookieStorage = nil
    return UVURLSession(loop: loop, configuration: configuration)
}

/// A GET of `path` on 127.0.0.1:`port`.
private func get(_ port: Int, _ path: String) -> HTTPRequest {
    HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(port)", path: path)
}

/// Runs one task to its end on `loop`; its status or its error.
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

private extension SpanAttributes {
    /// The attribute's value as text, whatever its type.
    func text(_ name: String) -> String? {
        guard let value = self[name]?.toSpanAttribute() else { return nil }
        switch value {
        case .string(let string): return string
        case .int64(let int): return "\(int)"
        default: return "\(value)"
        }
    }
}

@Suite("Session tracing (trait Tracing): a client span per task, its context injected into the request")
struct SessionTracingTests {
    @Test("a span per task with OpenTelemetry's HTTP client attributes; the request carries its ids")
    func spanPerTask() throws {
        let server = try TestHTTPServer(routes: ["/hello": .text("hello")])
        defer { server.shutdown() }
        let tracer = InMemoryTracer()
        try withLoop { loop in
            let session = tracingSession(on: loop, tracer)
            let status200 = try run(session, get(server.port, "/hello"), on: loop).get()
            #expect(status200 == 200)
        }
        let spans = tracer.finishedSpans
        #expect(spans.count == 1)
        let span = try #require(spans.first)
        #expect(span.operationName == "GET")
        #expect(span.kind == .client)
        #expect(span.parentSpanID == nil)
        #expect(span.attributes.text("http.request.method") == "GET")
        #expect(span.attributes.text("url.full") == "http://127.0.0.1:\(server.port)/hello")
        #expect(span.attributes.text("server.address") == "127.0.0.1")
        #expect(span.attributes.text("server.port") == "\(server.port)")
        #expect(span.attributes.text("http.response.status_code") == "200")
        #expect(span.attributes.text("network.protocol.version") == "1.1")
        #expect(span.attributes.text("error.type") == nil)
        #expect(span.status == nil)
        let sent = try #require(server.requests.first)
        #expect(sent.headerFields[HTTPField.Name("in-memory-trace-id")!] == span.traceID)
        #expect(sent.headerFields[HTTPField.Name("in-memory-span-id")!] == span.spanID)
    }

    @Test("W3C propagation: traceparent 00-<trace>-<span>-01 on the request, once, after a redirect too")
    func traceparent() throws {
        let server = try TestHTTPServer(routes: [
            "/from": TestHTTPServer.Response(status: .found, headerFields: [.location: "/to", .contentLength: "0"]),
            "/to": .text("here"),
        ])
        defer { server.shutdown() }
        let tracer = W3CInMemoryTracer()
        try withLoop { loop in
            let session = tracingSession(on: loop, tracer)
            let status200 = try run(session, get(server.port, "/from"), on: loop).get()
            #expect(status200 == 200)
        }
        let span = try #require(tracer.memory.finishedSpans.first)
        #expect(span.traceID.count == 32 && span.spanID.count == 16)
        let requests = server.requests
        #expect(requests.count == 2)
        for request in requests {
            #expect(request.headerFields[values: HTTPField.Name("traceparent")!] == ["00-\(span.traceID)-\(span.spanID)-01"])
        }
        #expect(span.attributes.text("url.full") == "http://127.0.0.1:\(server.port)/to")
    }

    @Test("the caller's ServiceContext when the task subscribes is the span's parent")
    func parentContext() throws {
        let server = try TestHTTPServer(routes: ["/": .text("child")])
        defer { server.shutdown() }
        let tracer = InMemoryTracer()
        let parent = tracer.startSpan("parent")
        try withLoop { loop in
            let session = tracingSession(on: loop, tracer)
            let cancellable = ServiceContext.withValue(parent.context) {
                session.bodyTaskPublisher(for: get(server.port, "/"), bytes: nil)
                    .sink(receiveCompletion: { _ in }, receiveValue: { _ in })
            }
            withExtendedLifetime(cancellable) { _ = loop.run() }
        }
        parent.end()
        let child = try #require(tracer.finishedSpans.first { $0.operationName == "GET" })
        #expect(child.traceID == parent.traceID)
        #expect(child.parentSpanID == parent.spanID)
    }

    @Test("a failure: error.type is the code's name, the error is recorded, the status is error")
    func failure() throws {
        let refused = try TestHTTPServer(routes: [:])
        let port = refused.port
        refused.shutdown()
        let tracer = InMemoryTracer()
        try withLoop { loop in
            let session = tracingSession(on: loop, tracer)
            #expect(throws: UVURLError.self) { try run(session, get(port, "/"), on: loop).get() }
        }
        let span = try #require(tracer.finishedSpans.first)
        #expect(span.attributes.text("error.type") == "cannotConnectToHost")
        #expect(span.status?.code == .error)
        #expect(span.errors.count == 1)
        #expect((span.errors.first?.error as? UVURLError)?.code == .cannotConnectToHost)
        #expect(span.attributes.text("http.response.status_code") == nil)
    }

    @Test("a 404: error.type is the status code and the status is error")
    func clientErrorStatus() throws {
        let server = try TestHTTPServer(routes: ["/missing": .text("gone", status: .notFound)])
        defer { server.shutdown() }
        let tracer = InMemoryTracer()
        try withLoop { loop in
            let session = tracingSession(on: loop, tracer)
            let status404 = try run(session, get(server.port, "/missing"), on: loop).get()
            #expect(status404 == 404)
        }
        let span = try #require(tracer.finishedSpans.first)
        #expect(span.attributes.text("http.response.status_code") == "404")
        #expect(span.attributes.text("error.type") == "404")
        #expect(span.status?.code == .error)
        #expect(span.errors.isEmpty)
    }

    @Test("no tracer and nothing bootstrapped: no span, no recorder, the request is the prepared one")
    func offWithoutTracer() throws {
        let server = try TestHTTPServer(routes: ["/": .text("quiet")])
        defer { server.shutdown() }
        try withLoop { loop in
            let session = tracingSession(on: loop, nil)
            #expect(session.engine.observers.tracer == nil)
            var sawRecorder = true
            run(session, get(server.port, "/"), on: loop) {
                sawRecorder = session.engine.tasksCollectingMetrics > 0
            }
            #expect(!sawRecorder)
        }
        #expect(server.requests.first?.headerFields[HTTPField.Name("traceparent")!] == nil)
    }
}
#endif
