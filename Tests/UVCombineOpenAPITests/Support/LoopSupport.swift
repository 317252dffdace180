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

/// `count` bytes where byte `i` is `i % 256`, in chunks of `chunk` bytes,
/// made only when pulled (counting how many bytes were pulled), once.
final class PatternProducer: AsyncSequence, Sendable {
    typealias Element = Body.ByteChunk
    let count: Int
    let chunk: Int
    private let pulled = Mutex(0)

    init(count: Int, chunk: Int = 64 * 1024) {
        self.count = count
        self.chunk = chunk
    }

    var pulledBytes: Int { pulled.withLock { $0 } }

    var expectedSum: Int {
        var sum = 0
        for i in 0..<count { sum += i % 256 }
        return sum % (1 << 32)
    }

    func makeAsyncIterator() -> Iterator { Iterator(producer: self) }

    struct Iterator: AsyncIteratorProtocol {
        let producer: PatternProducer
        var offset = 0

        mutating func next() async throws -> Body.ByteChunk? {
            guard offset < producer.count else { return nil }
            let start = offset
            let length = Swift.min(producer.chunk, producer.count - start)
            offset += length
            let end = offset
            producer.pulled.withLock { $0 = end }
            return (0..<length).map { UInt8(truncatingIfNeeded: start + $0) }[...]
        }
    }
}
#endif
