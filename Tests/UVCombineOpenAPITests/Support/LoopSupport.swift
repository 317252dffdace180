#if OpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Synchronization
import UVCombineHTTP
import UVCombineLoop
import UVCombineOpenAPI

/// Runs `body` with a session on a loop on a thread of its own and a
/// pet store server, then stops both (the loop is closed: its handles
/// must all be gone).
func withPetStore(_ body: (UVURLSession, UVURLSessionTransport, PetStoreServer) async throws -> Void) async throws {
    let server = try PetStoreServer()
    defer { server.stop() }
    let background = try UVLoopThread()
    do {
        let session = UVURLSession(loop: background.loop)
        try await body(session, UVURLSessionTransport(session: session), server)
    } catch {
        try? background.shutdown()
        throw error
    }
    try background.shutdown()
}

/// Runs `body` on the loop's thread, from async code.
func onLoop<R: Sendable>(_ loop: UVLoop, _ body: @escaping @Sendable () -> R) async -> R {
    await withCheckedContinuation { continuation in
        loop.schedule { continuation.resume(returning: body()) }
    }
}

/// The session's open connections, counted on its loop.
func connectionCount(of session: UVURLSession) async -> Int {
    await onLoop(session.loop) { session.engine.connectionCount }
}

/// OpenAPIRuntime's body (the package's own `HTTPBody`, the C API's
/// collected body, is visible here too).
typealias Body = OpenAPIRuntime.HTTPBody

/// An operation's request as a generated client makes it: no scheme or
/// authority, the path relative to the server URL.
func operation(_ method: HTTPRequest.Method, _ path: String, accept: String? = "application/json") -> HTTPRequest {
    var request = HTTPRequest(method: method, scheme: nil, authority: nil, path: path)
    if let accept { request.headerFields[.accept] = accept }
    return request
}

/// The whole body as a string.
func text(_ body: Body?) async throws -> String {
    guard let body else { return "<nil>" }
    return try await String(collecting: body, upTo: 1 << 24)
}

/// The error `body` throws, or nil.
func thrownError<R>(_ body: () async throws -> R) async -> (any Error)? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error
    }
}

/// `count` bytes where byte `i` is `i % 256`, in chunks of `chunk` bytes
/// (a multiple of 256, so every chunk starts the pattern afresh and is a
/// prefix of one shared array), made only when pulled; counts what was
/// pulled. Single pass.
final class PatternProducer: AsyncSequence, Sendable {
    typealias Element = Body.ByteChunk
    let count: Int
    private let block: [UInt8]
    private let pulled = Mutex(0)

    init(count: Int, chunk: Int = 64 * 1024) {
        precondition(chunk % 256 == 0, "chunks start the pattern afresh")
        self.count = count
        block = (0..<chunk).map { UInt8(truncatingIfNeeded: $0) }
    }

    var pulledBytes: Int { pulled.withLock { $0 } }

    /// The bytes' sum mod 2^32, as the server reports it.
    var expectedSum: Int {
        (count / 256 * (255 * 256 / 2) + (0..<(count % 256)).reduce(0, +)) % (1 << 32)
    }

    func makeAsyncIterator() -> Iterator { Iterator(producer: self) }

    struct Iterator: AsyncIteratorProtocol {
        let producer: PatternProducer
        var offset = 0

        mutating func next() async throws -> Body.ByteChunk? {
            guard offset < producer.count else { return nil }
            let length = Swift.min(producer.block.count, producer.count - offset)
            offset += length
            let end = offset
            producer.pulled.withLock { $0 = end }
            return producer.block[..<length]
        }
    }
}
#endif
