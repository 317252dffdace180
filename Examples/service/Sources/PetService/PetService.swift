import Foundation
import InMemoryTracing
import Logging
import Metrics
import MetricsTestKit
import OpenAPIRuntime
import Tracing
import UVCombine
import UVCombineOpenAPI

/// A loop-driven client service: refreshes a few pets from the pet store
/// through a generated OpenAPI client on a `UVURLSession`, inside one
/// span, then prints the metrics and spans the session recorded.
///
/// Usage: `PetService <server URL>`, for example
/// `PetService http://127.0.0.1:8080/api` (README.md).
///
/// Threading: the session's loop runs on a thread of its own
/// (`UVLoopThread`); the client's calls run with that loop as their
/// executor preference, so the transport's work stays on the loop thread.
@main
struct PetService {
    static func main() async throws {
        guard CommandLine.arguments.count == 2, let serverURL = URL(string: CommandLine.arguments[1]) else {
            FileHandle.standardError.write(Data("usage: PetService <server URL, e.g. http://127.0.0.1:8080/api>\n".utf8))
            exit(2)
        }

        // Once per process, before the sessions are made: the session takes
        // the process-wide factory and tracer when it is created (or its
        // configuration's metricsFactory and tracer, when set).
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        let metrics = TestMetrics()
        MetricsSystem.bootstrap(metrics)
        let tracer = InMemoryTracer()
        InstrumentationSystem.bootstrap(tracer)

        var logger = Logger(label: "pet-service.http")
        logger.logLevel = .debug
        var configuration = UVURLSession.Configuration()
        configuration.logger = logger

        let background = try UVLoopThread()
        let session = UVURLSession(loop: background.loop, configuration: configuration)
        let client = Client(serverURL: serverURL, transport: UVURLSessionTransport(session: session))

        try await Task(executorPreference: background.executor) {
            try await withSpan("refresh-pets") { _ in
                for id in 1...3 {
                    let pet = try await client.getPet(path: .init(petId: Int64(id))).ok.body.json
                    print("pet \(pet.id): \(pet.name)")
                }
                let created = try await client.createPet(body: .json(.init(name: "rex"))).created.body.json
                print("created pet \(created.id): \(created.name)")
                if case .notFound(let missing) = try await client.getPet(path: .init(petId: 404)) {
                    print("pet 404: \(try missing.body.json.message)")
                }
            }
        }.value
        try background.shutdown()

        print("\nmetrics:")
        for counter in metrics.counters {
            print("  \(counter.label) \(counter.dimensions) = \(counter.totalValue)")
        }
        for timer in metrics.timers {
            let milliseconds = timer.values.map { String(format: "%.2f", Double($0) / 1e6) }
            print("  \(timer.label) \(timer.dimensions) ms: \(milliseconds.joined(separator: ", "))")
        }
        for meter in metrics.meters {
            print("  \(meter.label) \(meter.dimensions) = \(meter.lastValue ?? 0)")
        }
        print("\nspans:")
        for span in tracer.finishedSpans {
            let parent = span.parentSpanID.map { " parent \($0)" } ?? ""
            print("  \(span.operationName) trace \(span.traceID) span \(span.spanID)\(parent)")
            var lines: [String] = []
            span.attributes.forEach { name, value in lines.append("    \(name) = \(value)") }
            for line in lines.sorted() { print(line) }
        }
    }
}
