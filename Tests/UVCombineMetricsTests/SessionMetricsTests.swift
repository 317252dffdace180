#if Metrics
import CoreMetrics
import HTTPTypes
import MetricsTestKit
import Synchronization
import Testing
import UVCombineCore
import UVCombineHTTPClient
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// A session recording into its own `TestMetrics` (no global bootstrap:
/// each test has its own factory).
private func metricsSession(on loop: UVLoop, _ metrics: TestMetrics?) -> UVURLSession {
    var configuration = UVURLSession.Configuration()
    configuration.metricsFactory = metrics
    configuration.httpCookieStorage = nil
    return UVURLSession(loop: loop, configuration: configuration)
}

/// `method` of `path` on 127.0.0.1:`port`.
private func request(_ port: Int, _ path: String, _ method: HTTPRequest.Method = .get) -> HTTPRequest {
    HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:\(port)", path: path)
}

/// Runs one task to its end on `loop`; its status or its error.
/// `whileRunning` runs when the value arrives.
@discardableResult
private func run(_ session: UVURLSession, _ request: HTTPRequest, body: [UInt8]? = nil, on loop: UVLoop,
                 whileRunning: @escaping () -> Void = {}) -> Result<Int, UVURLError> {
    var outcome: Result<Int, UVURLError> = .failure(UVURLError(.cancelled, detail: "no outcome"))
    let cancellable = session.bodyTaskPublisher(for: request, bytes: body).sink(receiveCompletion: { completion in
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

/// A port nothing listens on (a server's, shut down).
private func refusedPort() throws -> Int {
    let server = try TestHTTPServer(routes: [:])
    let port = server.port
    server.shutdown()
    return port
}

@Suite("Session metrics (trait Metrics): swift-metrics instruments with OpenTelemetry's HTTP client names")
struct SessionMetricsTests {
    @Test("requests, durations by method, server and status, body sizes, nothing in flight at the end")
    func completedRequests() throws {
        let server = try TestHTTPServer(routes: ["/": .text("hello"), "/missing": .text("gone", status: .notFound)])
        defer { server.shutdown() }
        let metrics = TestMetrics()
        try withLoop { loop in
            let session = metricsSession(on: loop, metrics)
            var statuses: [Int] = []
            statuses.append(try run(session, request(server.port, "/"), on: loop).get())
            statuses.append(try run(session, request(server.port, "/"), on: loop).get())
            statuses.append(try run(session, request(server.port, "/missing"), on: loop).get())
            statuses.append(try run(session, request(server.port, "/", .post), body: Array("12345678".utf8), on: loop).get())
            #expect(statuses == [200, 200, 404, 200])
        }
        #expect(try metrics.expectCounter("http.client.requests").totalValue == 4)
        #expect(metrics.counters(label: "http.client.request.failures").isEmpty)
        #expect(try metrics.expectMeter("http.client.active_requests").lastValue == 0)
        let ok = try metrics.expectTimer("http.client.request.duration", [
            ("http.request.method", "GET"), ("server.address", "127.0.0.1"), ("server.port", "\(server.port)"),
            ("http.response.status_code", "200"),
        ])
        #expect(ok.values.count == 2 && ok.values.allSatisfy { $0 > 0 })
        let missing = try metrics.expectTimer("http.client.request.duration", [
            ("http.request.method", "GET"), ("server.address", "127.0.0.1"), ("server.port", "\(server.port)"),
            ("http.response.status_code", "404"),
        ])
        #expect(missing.values.count == 1)
        let posted = try metrics.expectTimer("http.client.request.duration", [
            ("http.request.method", "POST"), ("server.address", "127.0.0.1"), ("server.port", "\(server.port)"),
            ("http.response.status_code", "200"),
        ])
        #expect(posted.values.count == 1)
        #expect(try metrics.expectRecorder("http.client.response.body.size").values == [5, 5, 4, 5])
        #expect(try metrics.expectRecorder("http.client.request.body.size").values == [0, 0, 0, 8])
    }

    @Test("a failure is counted by its error code, with a duration carrying error.type")
    func failures() throws {
        let port = try refusedPort()
        let metrics = TestMetrics()
        try withLoop { loop in
            let session = metricsSession(on: loop, metrics)
            #expect(throws: UVURLError.self) { try run(session, request(port, "/"), on: loop).get() }
        }
        let failures = try metrics.expectCounter("http.client.request.failures", [("error.type", "cannotConnectToHost")])
        #expect(failures.totalValue == 1)
        #expect(try metrics.expectCounter("http.client.requests").totalValue == 1)
        #expect(try metrics.expectMeter("http.client.active_requests").lastValue == 0)
        let timer = try metrics.expectTimer("http.client.request.duration", [
            ("http.request.method", "GET"), ("server.address", "127.0.0.1"), ("server.port", "\(port)"),
            ("error.type", "cannotConnectToHost"),
        ])
        #expect(timer.values.count == 1)
    }

    @Test("a task in flight is counted while it runs; the connection is active then idle in the pool")
    func inFlightAndConnections() throws {
        let metrics = TestMetrics()
        // Read on the server's thread while it answers: the task is in
        // flight and its connection carries it (TestMetrics is thread-safe).
        let seen = Mutex<(inFlight: Double?, active: Double?)>((nil, nil))
        let server = try TestHTTPServer { _ in
            let inFlight = try? metrics.expectMeter("http.client.active_requests").lastValue
            let active = try? metrics.expectMeter("http.client.open_connections",
                                                  [("http.connection.state", "active")]).lastValue
            seen.withLock { $0 = (inFlight, active) }
            return .text("hello")
        }
        defer { server.shutdown() }
        try withLoop { loop in
            let session = metricsSession(on: loop, metrics)
            let status = try run(session, request(server.port, "/"), on: loop).get()
            #expect(status == 200)
            let idle = try metrics.expectMeter("http.client.open_connections", [("http.connection.state", "idle")])
            let stillActive = try metrics.expectMeter("http.client.open_connections", [("http.connection.state", "active")])
            #expect(idle.lastValue == 1)
            #expect(stillActive.lastValue == 0)
            session.invalidateAndCancel()
        }
        let during = seen.withLock { $0 }
        #expect(during.inFlight == 1)
        #expect(during.active == 1)
        #expect(try metrics.expectMeter("http.client.open_connections",
                                        [("http.connection.state", "idle")]).lastValue == 0)
    }

    @Test("a cancelled task leaves the in-flight count and is counted as cancelled")
    func cancelled() throws {
        let server = try TestHTTPServer(routes: ["/": .text("hello")])
        defer { server.shutdown() }
        let metrics = TestMetrics()
        try withLoop { loop in
            let session = metricsSession(on: loop, metrics)
            var cancellable: AnyCancellable?
            cancellable = session.bodyTaskPublisher(for: request(server.port, "/"), bytes: nil)
                .sink(receiveCompletion: { _ in }, receiveValue: { _ in })
            // Cancelled on the loop once the task started.
            loop.schedule { cancellable?.cancel() }
            loop.run()
            cancellable = nil
        }
        #expect(try metrics.expectMeter("http.client.active_requests").lastValue == 0)
        #expect(try metrics.expectCounter("http.client.request.failures", [("error.type", "cancelled")]).totalValue == 1)
    }

    @Test("no factory and nothing bootstrapped: no instrument, no task gets a recorder")
    func offWithoutFactory() throws {
        let server = try TestHTTPServer(routes: ["/": .text("quiet")])
        defer { server.shutdown() }
        try withLoop { loop in
            let session = metricsSession(on: loop, nil)
            #expect(session.engine.observers.metrics == nil)
            var sawRecorder = true
            run(session, request(server.port, "/"), on: loop) {
                sawRecorder = session.engine.tasksCollectingMetrics > 0
            }
            #expect(!sawRecorder)
        }
    }

    @Test("configurations compare their factories by identity")
    func configurationEquality() {
        let first = TestMetrics()
        var left = UVURLSession.Configuration()
        var right = UVURLSession.Configuration()
        #expect(left == right)
        left.metricsFactory = first
        #expect(left != right)
        right.metricsFactory = first
        #expect(left == right)
        right.metricsFactory = TestMetrics()
        #expect(left != right)
    }
}
#endif
