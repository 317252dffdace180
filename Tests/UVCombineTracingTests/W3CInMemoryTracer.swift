#if Tracing
import InMemoryTracing
import Tracing

/// swift-distributed-tracing's `InMemoryTracer` with W3C Trace Context
/// propagation: ids shaped as W3C's (32 and 16 lowercase hex digits) and
/// `inject` writing `traceparent` (version 00, sampled), as an
/// OpenTelemetry tracer's W3C propagator does. The in-memory tracer alone
/// injects its own keys (`in-memory-trace-id`, `in-memory-span-id`).
///
/// Threading: `Sendable`; any thread, as `InMemoryTracer`.
struct W3CInMemoryTracer: Tracer {
    typealias Span = InMemorySpan

    /// The tracer that keeps the spans.
    let memory: InMemoryTracer

    init() {
        memory = InMemoryTracer(idGenerator: .init(
            nextTraceID: { Self.hex(UInt64.random(in: 1...UInt64.max), UInt64.random(in: 0...UInt64.max)) },
            nextSpanID: { Self.hex(UInt64.random(in: 1...UInt64.max)) }
        ))
    }

    /// `words` as lowercase hex, 16 digits each.
    private static func hex(_ words: UInt64...) -> String {
        words.map { word in
            let digits = String(word, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
        memory.startSpan(operationName, context: context(), ofKind: kind, at: instant(), function: function,
                         file: fileID, line: line)
    }

    func forceFlush() { memory.forceFlush() }

    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
        where Inject.Carrier == Carrier {
        guard let span = context.inMemorySpanContext else { return }
        injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
        where Extract.Carrier == Carrier {}
}
#endif
