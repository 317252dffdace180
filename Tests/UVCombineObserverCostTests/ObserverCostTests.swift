import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTPClient
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting
#if Logging
import Logging
#endif
#if Metrics
import MetricsTestKit
#endif
#if Tracing
import InMemoryTracing
#endif

/// The observer traits this build has.
private let enabledTraits: String = {
    var traits: [String] = []
    #if Logging
    traits.append("Logging")
    #endif
    #if Metrics
    traits.append("Metrics")
    #endif
    #if Tracing
    traits.append("Tracing")
    #endif
    return traits.isEmpty ? "none" : traits.joined(separator: ",")
}()

#if DEBUG
/// Whether this is an optimised build (the counts below are compared
/// within one build; their absolute values mean something only in release).
private let buildMode = "debug"
#else
private let buildMode = "release"
#endif

/// Mallocs per request on the loop thread for a session made with
/// `configuration`: `rounds` GETs on one kept-alive connection to a server
/// on its own thread (whose mallocs are not counted), after a warm-up.
private func mallocsPerRequest(_ configuration: UVURLSession.Configuration, server: TestHTTPServer,
                               rounds: Int = 300) throws -> Double {
    let loop = try UVLoop()
    let session = UVURLSession(loop: loop, configuration: configuration)
    let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(server.port)", path: "/")
    let publisher = session.bodyTaskPublisher(for: request, bytes: nil)
    var completed = 0
    func once() {
        let cancellable = publisher.sink(receiveCompletion: { _ in }, receiveValue: { _ in completed += 1 })
        withExtendedLifetime(cancellable) { _ = loop.run() }
    }
    for _ in 0..<50 { once() }
    let mallocs = AllocationCounter.count {
        for _ in 0..<rounds { once() }
    }
    #expect(completed == rounds + 50)
    session.invalidateAndCancel()
    loop.run()
    try loop.close()
    return Double(mallocs) / Double(rounds)
}

/// A configuration without cookies (their store allocates on its own).
private func plainConfiguration() -> UVURLSession.Configuration {
    var configuration = UVURLSession.Configuration()
    configuration.httpCookieStorage = nil
    return configuration
}

/// `body`'s answer about a plain session on a fresh loop, closed after.
private func withPlainSession(_ body: (UVURLSession) -> Bool) throws -> Bool {
    let loop = try UVLoop()
    let answer = body(UVURLSession(loop: loop, configuration: plainConfiguration()))
    loop.run()
    try loop.close()
    return answer
}

/// The observers switched off cost no malloc per task: each is compared
/// with a session that has none, in the same build and process. A cost
/// per task (a recorder, a metadata dictionary, a span) would show as at
/// least one malloc per request; the tolerance (0.2 per request) is for
/// the loop's own rare growth, not for a per-task allocation.
@Suite("Observers off cost no malloc per task (traits Logging, Metrics, Tracing)", .serialized)
struct ObserverCostTests {
    @Test("the counter counts here; a plain session's figure (the default build's is the traits-off one)")
    func baseline() throws {
        #expect(AllocationCounter.isCounting)
        let server = try TestHTTPServer(routes: ["/": .text("x")])
        defer { server.shutdown() }
        let baseline = try mallocsPerRequest(plainConfiguration(), server: server)
        print("observer cost (\(buildMode), traits \(enabledTraits)): \(baseline) mallocs per request, plain session")
        #expect(baseline > 0)
    }

    #if Logging
    @Test("a Logger at info: no malloc added per task")
    func loggerAtInfo() throws {
        let server = try TestHTTPServer(routes: ["/": .text("x")])
        defer { server.shutdown() }
        let baseline = try mallocsPerRequest(plainConfiguration(), server: server)
        var configuration = plainConfiguration()
        var logger = Logger(label: "uvcombine.cost") { _ in SwiftLogNoOpLogHandler() }
        logger.logLevel = .info
        configuration.logger = logger
        let withLogger = try mallocsPerRequest(configuration, server: server)
        print("observer cost (\(buildMode)): \(baseline) mallocs per request without a logger, \(withLogger) with one at info")
        #expect(withLogger - baseline < 0.2)
    }
    #endif

    #if Metrics
    @Test("the Metrics trait on, no factory, nothing bootstrapped: no malloc added per task")
    func metricsOff() throws {
        let server = try TestHTTPServer(routes: ["/": .text("x")])
        defer { server.shutdown() }
        #expect(try withPlainSession { $0.engine.observers.metrics == nil })
        let baseline = try mallocsPerRequest(plainConfiguration(), server: server)
        var configuration = plainConfiguration()
        configuration.metricsFactory = TestMetrics()
        let recording = try mallocsPerRequest(configuration, server: server)
        print("observer cost (\(buildMode)): \(baseline) mallocs per request with metrics off, \(recording) recording into TestMetrics")
        // Recording costs something (the task's recorder): the measure
        // sees a per-task allocation, so the off path's equality with
        // the default build's figure (`baseline`) means none is there.
        #expect(recording - baseline >= 1)
    }
    #endif

    #if Tracing
    @Test("the Tracing trait on, no tracer, nothing bootstrapped: no malloc added per task")
    func tracingOff() throws {
        let server = try TestHTTPServer(routes: ["/": .text("x")])
        defer { server.shutdown() }
        #expect(try withPlainSession { $0.engine.observers.tracer == nil })
        let baseline = try mallocsPerRequest(plainConfiguration(), server: server)
        var configuration = plainConfiguration()
        configuration.tracer = InMemoryTracer(recordInjections: false)
        let tracing = try mallocsPerRequest(configuration, server: server)
        print("observer cost (\(buildMode)): \(baseline) mallocs per request with tracing off, \(tracing) tracing in memory")
        #expect(tracing - baseline >= 1)
    }
    #endif
}
