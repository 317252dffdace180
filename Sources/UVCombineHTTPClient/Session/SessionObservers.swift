#if Metrics
import CoreMetrics
#endif
#if Tracing
import Tracing
#endif

/// The observers behind package traits that see every task, made once per
/// session from its configuration: swift-metrics' instruments (trait
/// `Metrics`) and swift-distributed-tracing's tracer (trait `Tracing`).
/// Without either trait it holds nothing and ``observesTasks`` is a
/// constant `false`, so the engine's collection points cost what they cost
/// before (SessionEngine+Metrics.swift).
///
/// Each is nil when nothing would record: no factory or tracer configured
/// and the process-wide one is still swift-metrics' `NOOPMetricsHandler`
/// or swift-distributed-tracing's `NoOpTracer` when the session is made.
/// A task then gets no recorder on their account: one check at its start.
///
/// Threading: made on any thread with the session; used on its loop thread.
package struct SessionObservers {
    #if Metrics
    /// The session's swift-metrics instruments, or nil.
    package let metrics: SessionMetricsInstruments?
    #endif
    #if Tracing
    /// The tracer that starts each task's span, or nil.
    package let tracer: (any Tracer)?
    #endif

    /// The observers `configuration` asks for.
    package init(configuration: UVURLSession.Configuration) {
        #if Metrics
        metrics = SessionMetricsInstruments(factory: configuration.metricsFactory ?? MetricsSystem.factory)
        #endif
        #if Tracing
        let tracer = configuration.tracer ?? InstrumentationSystem.tracer
        self.tracer = tracer is NoOpTracer ? nil : tracer
        #endif
    }

    /// Whether tasks need a recorder for these observers' sake.
    @inline(__always)
    package var observesTasks: Bool {
        #if Metrics
        if metrics != nil { return true }
        #endif
        #if Tracing
        if tracer != nil { return true }
        #endif
        return false
    }
}
