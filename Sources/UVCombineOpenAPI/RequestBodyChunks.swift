#if OpenAPI
import FoundationEssentials
import OpenAPIRuntime

/// An operation's request body as the session's streamed upload takes it:
/// the `HTTPBody`'s chunks as `Data`, skipping empty ones (an empty chunk
/// carries nothing, and in chunked framing would read as the end).
///
/// The session subscribes to `uvPublisher` of this sequence, which calls
/// `next()` only when the session asks for a chunk: one chunk when the
/// previous one was written (docs/url-session.md, "Streamed request
/// bodies"), so a slow server pauses the body's producer.
///
/// Cost: each chunk is copied once into a `Data` (the session's upload
/// API takes `Data`); the session then copies it into its write buffer.
///
/// Threading: iterated by the publisher's task, one `next()` at a time.
internal struct RequestBodyChunks: AsyncSequence, Sendable {
    internal typealias Element = Data

    internal let body: OpenAPIRuntime.HTTPBody

    internal func makeAsyncIterator() -> Iterator {
        Iterator(base: body.makeAsyncIterator())
    }

    internal struct Iterator: AsyncIteratorProtocol {
        internal var base: OpenAPIRuntime.HTTPBody.Iterator

        internal mutating func next() async throws -> Data? {
            while let chunk = try await base.next() {
                if !chunk.isEmpty { return Data(chunk) }
            }
            return nil
        }
    }
}
#endif
