import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// What one request costs on a reused keep-alive connection, counted with
/// the thread-local malloc counter on the fake transport (which allocates
/// nothing on this path). Release builds only.
@Suite("UVURLSession allocations", .enabled(if: isOptimizedBuild, "allocation counts are meaningful only with -c release"))
struct SessionAllocationTests {
    /// A typical nginx response head with a 1 KiB body.
    static let responseBytes: [UInt8] = Array((
        "HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Sat, 21 Nov 2026 04:31:26 GMT\r\n"
            + "Content-Type: text/html\r\nContent-Length: 1024\r\nConnection: keep-alive\r\n\r\n"
            + String(repeating: "x", count: 1024)
    ).utf8)

    @Test("a data task with a sink on a reused connection: at most 10 mallocs, Data and HTTPResponse included")
    func dataTaskPerRequest() {
        withFakeSession { _, fake, session in
            let publisher = session.dataTaskPublisher(for: exampleURL)
            var bytesReceived = 0
            func once() {
                let cancellable = publisher.sink(receiveCompletion: { _ in }, receiveValue: { bytesReceived += $0.data.count })
                Self.responseBytes.withUnsafeBytes { fake.last.respondDirectly($0) }
                _ = cancellable
            }
            // The first request connects; warm up metadata and capacities.
            let first = publisher.sink(receiveCompletion: { _ in }, receiveValue: { bytesReceived += $0.data.count })
            fake.last.accept()
            fake.last.recordsWrites = false
            Self.responseBytes.withUnsafeBytes { fake.last.respondDirectly($0) }
            _ = first
            for _ in 0..<100 { once() }
            let rounds = 1000
            let mallocs = AllocationCounter.count {
                for _ in 0..<rounds { once() }
            }
            let perRequest = Double(mallocs) / Double(rounds)
            print("UVURLSession data task: \(perRequest) mallocs per request (sink, subscription, Data, HTTPResponse)")
            #expect(perRequest <= 10)
            #expect(bytesReceived == 1024 * (rounds + 101))
            #expect(fake.connections.count == 1)
        }
    }

    @Test("the streaming publisher on a reused connection")
    func bytesPerRequest() {
        withFakeSession { _, fake, session in
            let publisher = session.bytesPublisher(for: exampleURL)
            var parts = 0
            func once() {
                let cancellable = publisher.sink(receiveCompletion: { _ in }, receiveValue: { _ in parts += 1 })
                Self.responseBytes.withUnsafeBytes { fake.last.respondDirectly($0) }
                _ = cancellable
            }
            let first = publisher.sink(receiveCompletion: { _ in }, receiveValue: { _ in parts += 1 })
            fake.last.accept()
            fake.last.recordsWrites = false
            Self.responseBytes.withUnsafeBytes { fake.last.respondDirectly($0) }
            _ = first
            for _ in 0..<100 { once() }
            let rounds = 1000
            let mallocs = AllocationCounter.count {
                for _ in 0..<rounds { once() }
            }
            let perRequest = Double(mallocs) / Double(rounds)
            print("UVURLSession bytes publisher: \(perRequest) mallocs per request (head + one body part)")
            #expect(perRequest <= 10)
            #expect(parts == 2 * (rounds + 101))
        }
    }
}
