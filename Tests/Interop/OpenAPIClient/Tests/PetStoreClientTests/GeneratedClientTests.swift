import Foundation
import OpenAPIRuntime
import PetStoreClient
import Synchronization
import Testing
import UVCombine
import UVCombineOpenAPI

/// Runs `body` with a generated client whose transport is a session on a
/// loop on a thread of its own, against a fresh pet store; the client's
/// calls run with the loop as their executor preference (on the loop
/// thread). Stops the server and the loop afterwards.
private func withClient(_ body: @escaping @Sendable (Client, PetStoreProcess, UVLoop) async throws -> Void) async throws {
    let server = try PetStoreProcess()
    defer { server.stop() }
    let background = try UVLoopThread()
    do {
        let session = UVURLSession(loop: background.loop)
        let client = Client(serverURL: server.serverURL, transport: UVURLSessionTransport(session: session))
        try await Task(executorPreference: background.executor) {
            try await body(client, server, background.loop)
        }.value
    } catch {
        try? background.shutdown()
        throw error
    }
    try background.shutdown()
}

/// `count` bytes, byte `i` being `i % 256`, in 64 KiB chunks (each a
/// prefix of one shared array) made only when pulled; counts what was
/// pulled. Single pass.
private final class PatternBytes: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk
    let count: Int
    private let block = (0..<(64 * 1024)).map { UInt8(truncatingIfNeeded: $0) }
    private let pulled = Mutex(0)

    init(count: Int) {
        self.count = count
    }

    var pulledBytes: Int { pulled.withLock { $0 } }

    /// The bytes' sum mod 2^32, as the server reports it.
    var sum: Int { (count / 256 * (255 * 256 / 2) + (0..<(count % 256)).reduce(0, +)) % (1 << 32) }

    func makeAsyncIterator() -> Iterator { Iterator(bytes: self) }

    struct Iterator: AsyncIteratorProtocol {
        let bytes: PatternBytes
        var offset = 0

        mutating func next() async throws -> HTTPBody.ByteChunk? {
            guard offset < bytes.count else { return nil }
            let length = Swift.min(bytes.block.count, bytes.count - offset)
            offset += length
            let end = offset
            bytes.pulled.withLock { $0 = end }
            return bytes.block[..<length]
        }
    }
}

/// A client made by swift-openapi-generator from openapi.yaml, sending
/// through UVURLSessionTransport on a loop, against a real server.
@Suite("Generated OpenAPI client on UVURLSessionTransport")
struct GeneratedClientTests {
    @Test("GET with path and query parameters returns the decoded JSON, on the loop thread")
    func getPet() async throws {
        try await withClient { client, _, loop in
            let output = try await client.getPet(path: .init(petId: 3), query: .init(verbose: true))
            #expect(loop.isInLoop)
            let pet = try output.ok.body.json
            #expect(pet.id == 3)
            #expect(pet.name == "pet-3")
            #expect(pet.verbose == true)
            let plain = try await client.getPet(path: .init(petId: 4)).ok.body.json
            #expect(plain.verbose == false)
        }
    }

    @Test("POST with a JSON body creates the pet")
    func createPet() async throws {
        try await withClient { client, _, _ in
            let output = try await client.createPet(body: .json(.init(name: "rex")))
            let pet = try output.created.body.json
            #expect(pet.id == 7)
            #expect(pet.name == "rex")
        }
    }

    @Test("a documented error status is that response, with its decoded body")
    func documentedError() async throws {
        try await withClient { client, _, _ in
            let output = try await client.getPet(path: .init(petId: 404))
            guard case .notFound(let notFound) = output else {
                Issue.record("expected notFound, got \(output)")
                return
            }
            let error = try notFound.body.json
            #expect(error.code == 404)
            #expect(error.message == "no pet 404")
        }
    }

    @Test("a streamed octet-stream download keeps its backpressure: the server stalls until the body is pulled")
    func streamedDownload() async throws {
        try await withClient { client, server, _ in
            let total = 32 * 1024 * 1024
            let body = try await client.downloadBlob(path: .init(size: total)).ok.body.binary
            #expect(body.length == .known(Int64(total)))
            var iterator = body.makeAsyncIterator()
            var received = 0
            var intact = true
            for _ in 0..<2 {
                if let chunk = try await iterator.next() {
                    intact = intact && chunk.first == UInt8(truncatingIfNeeded: received)
                    received += chunk.count
                }
            }
            let stalled = await settledValue { server.sentByteCount }
            #expect(stalled > 0 && stalled < 8 * 1024 * 1024, "the server sent \(stalled) of \(total) while nobody read")
            while let chunk = try await iterator.next() {
                intact = intact && chunk.first == UInt8(truncatingIfNeeded: received)
                    && chunk.last == UInt8(truncatingIfNeeded: received + chunk.count - 1)
                received += chunk.count
            }
            #expect(received == total)
            #expect(intact)
        }
    }

    @Test("a streamed upload of unknown length arrives whole; a server that does not read stops its producer")
    func streamedUpload() async throws {
        try await withClient { client, server, _ in
            let total = 16 * 1024 * 1024
            let bytes = PatternBytes(count: total)
            let upload = Task {
                try await client.uploadBlob(
                    query: .init(hold: 1),
                    body: .binary(HTTPBody(bytes, length: .unknown, iterationBehavior: .single)))
            }
            #expect(await eventually { server.holdingCount == 1 })
            let stalled = await settledValue { bytes.pulledBytes }
            #expect(stalled > 0 && stalled < 8 * 1024 * 1024, "pulled \(stalled) of \(total) while the server held")
            _ = try await client.release().noContent
            let receipt = try await upload.value.ok.body.json
            #expect(receipt.received == total)
            #expect(receipt.sum == bytes.sum)
            #expect(receipt.chunked == true)
        }
    }

    @Test("transport failures reach the caller as ClientError wrapping the session's UVURLError")
    func transportFailure() async throws {
        let background = try UVLoopThread()
        defer { try? background.shutdown() }
        let session = UVURLSession(loop: background.loop)
        // A server's port, once the server is gone: nothing listens there.
        let gone = try PetStoreProcess()
        gone.stop()
        let client = Client(serverURL: gone.serverURL,
                            transport: UVURLSessionTransport(session: session))
        do {
            _ = try await client.getPet(path: .init(petId: 1))
            Issue.record("the call succeeded")
        } catch let error as ClientError {
            #expect(error.operationID == "getPet")
            #expect((error.underlyingError as? UVURLError)?.code == .cannotConnectToHost)
        }
    }
}
