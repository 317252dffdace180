import Benchmark
import BenchmarkSupport

/// Sizes and metrics of the HTTP workloads.
enum HTTPWorkload {
    /// Sequential keep-alive GETs per iteration.
    static let sequentialRequests = 2_000
    /// Requests in flight at once in the concurrent workloads.
    static let width = 64
    /// Requests per iteration of the concurrent workloads.
    static let concurrentRequests = 64 * 50

    /// CPU time of the server's thread during the measured region.
    static let serverCPUTime = BenchmarkMetric.custom("serverCPUTime", polarity: .prefersSmaller,
                                                      useScalingFactor: false)
    /// The process's CPU time less the server's: the client's, on every
    /// thread it uses (AsyncHTTPClient works on its event loop's thread).
    static let clientCPUTime = BenchmarkMetric.custom("clientCPUTime", polarity: .prefersSmaller,
                                                      useScalingFactor: false)

    /// `Workload`'s metrics plus the two above; more iterations than the
    /// core workloads, whose iterations are shorter and steadier.
    static func configuration(maxIterations: Int, maxDuration: Duration) -> Benchmark.Configuration {
        var configuration = Workload.configuration(maxIterations: maxIterations, maxDuration: maxDuration)
        configuration.metrics += [serverCPUTime, clientCPUTime]
        configuration.units[serverCPUTime] = .count
        configuration.units[clientCPUTime] = .count
        return configuration
    }
}

extension Benchmark {
    /// ``measure(elements:_:)`` that also records the server's CPU time and
    /// the client's (the process's less the server's) for the region.
    func measureExchange(elements: Int, _ body: () -> Void) {
        let server = BenchServer.shared
        var serverTime = 0
        var processTime = 0
        measure(elements: elements) {
            let serverStart = server.cpuNanoseconds()
            let processStart = Workload.processCPUNanoseconds()
            body()
            processTime = Workload.processCPUNanoseconds() - processStart
            serverTime = server.cpuNanoseconds() - serverStart
        }
        measurement(HTTPWorkload.serverCPUTime, serverTime)
        measurement(HTTPWorkload.clientCPUTime, processTime - serverTime)
    }
}
