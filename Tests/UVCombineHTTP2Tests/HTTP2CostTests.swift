import Glibc
import HTTPTypes
import Testing
import UVCombineHTTP2
import UVCombineHTTPCore
import UVCombineTesting

#if DEBUG
private let isOptimizedBuild = false
#else
private let isOptimizedBuild = true
#endif

/// What one request costs the client connection alone (the in-memory
/// server's work is not counted): mallocs and CPU, printed for
/// docs/http2.md, with an upper bound on mallocs so a regression shows.
/// Measured (release): 11 mallocs per request, 3 of them nghttp2's, before
/// nghttp2's block cache (HTTP2BlockCache); 0.02 (1 in flight) and 0.23
/// (100) after it (2026-11-29).
@Suite("HTTP/2 client cost per request", .enabled(if: isOptimizedBuild, "allocation counts are meaningful only with -c release"))
struct HTTP2CostTests {
    static func threadCPU() -> Duration {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
    }

    /// Runs `count` GETs (1 KiB responses), `inFlight` at a time; the
    /// client's mallocs and CPU.
    static func run(count: Int, inFlight: Int) throws -> (mallocs: Int, cpu: Duration) {
        let exchange = try SmallFileExchange()
        let (client, server, recorder, request) = (exchange.client, exchange.server, exchange.recorder, exchange.request)
        var mallocs = 0
        var cpu = Duration.zero
        var out: [UInt8] = []
        out.reserveCapacity(1 << 20)
        var sent = 0
        while recorder.ended < count {
            let before = AllocationCounter.threadTotal
            let start = threadCPU()
            while sent < count && sent - recorder.ended < inFlight {
                _ = try client.openStream(request)
                sent += 1
            }
            out.removeAll(keepingCapacity: true)
            client.produceOutput(into: &out)
            cpu += threadCPU() - start
            mallocs += AllocationCounter.threadTotal - before
            if !out.isEmpty { server.receive(out) }
            let back = server.output()
            let before2 = AllocationCounter.threadTotal
            let start2 = threadCPU()
            back.withUnsafeBytes { client.receive($0, now: HTTPDeadline(uptimeNanoseconds: 0)) }
            cpu += threadCPU() - start2
            mallocs += AllocationCounter.threadTotal - before2
        }
        return (mallocs, cpu)
    }

    @Test("mallocs and CPU per request, 1 and 100 in flight", .enabled(if: AllocationCounter.isCounting))
    func costPerRequest() throws {
        _ = try Self.run(count: 200, inFlight: 100)  // warm up
        for inFlight in [1, 100] {
            let (mallocs, cpu) = try Self.run(count: 1000, inFlight: inFlight)
            let perRequest = Double(mallocs) / 1000
            print("HTTP2 cost: \(inFlight) in flight: \(perRequest) mallocs and \(cpu / 1000) CPU per request (client only)")
            #expect(perRequest <= 1, "mallocs per request: \(perRequest)")
        }
    }
}

/// Counts ends and consumes everything, as a subscriber with unlimited
/// demand would; keeps nothing.
final class CountingDelegate: HTTP2ConnectionDelegate {
    var ended = 0
    var bytes = 0
    func http2Connection(_ connection: HTTP2ClientConnection, didReceive event: HTTP2Event) {
        switch event {
        case .data(let id, let chunk):
            bytes += chunk.count
            connection.consume(chunk.count, on: id)
        case .end:
            ended += 1
        default:
            break
        }
    }
}
