#if OpenAPI
import FoundationEssentials
import OpenAPIRuntime
import UVCombineHTTP

/// Owns one operation's ``ResponseStream`` for everything that reads it
/// (the transport until it returns, then the response `HTTPBody` and its
/// iterator): when the last of them goes, the request is cancelled, so a
/// body dropped before its end (an undocumented response nobody reads, a
/// consumer that stops early) closes its connection instead of leaving
/// the session waiting for demand that never comes. A no-op after the end.
///
/// Threading: immutable; released from any thread.
internal final class ResponseStreamOwner: Sendable {
    internal let stream: ResponseStream

    internal init(_ stream: ResponseStream) {
        self.stream = stream
    }

    deinit {
        stream.cancel()
    }
}

/// The response body's chunks as `HTTPBody` iterates them: each `next()`
/// asks the session for one part (one unit of demand) and returns its
/// bytes, so the socket is read only as fast as the body is consumed.
///
/// Cost: each part is copied once from the session's `Data` into the
/// `ArraySlice<UInt8>` that `HTTPBody` deals in.
///
/// Threading: `Sendable`; iterated once (the body is `.single`), from any
/// task; a consumer on the loop's executor gets each part on the loop
/// thread.
internal struct ResponseBodyParts: AsyncSequence, Sendable {
    internal typealias Element = OpenAPIRuntime.HTTPBody.ByteChunk

    internal let owner: ResponseStreamOwner

    internal func makeAsyncIterator() -> Iterator {
        Iterator(owner: owner)
    }

    internal struct Iterator: AsyncIteratorProtocol {
        internal let owner: ResponseStreamOwner

        internal mutating func next() async throws -> OpenAPIRuntime.HTTPBody.ByteChunk? {
            while let part = try await owner.stream.nextPart() {
                // The head came before the body was made: only parts here.
                if case .body(let data) = part { return OpenAPIRuntime.HTTPBody.ByteChunk(data) }
            }
            return nil
        }
    }
}
#endif
