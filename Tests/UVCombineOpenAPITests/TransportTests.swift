#if OpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing
import TestServerSupport
import UVCombineHTTP
import UVCombineLoop
import UVCombineOpenAPI

/// The transport on its own (no generated code) against the pet store on
/// real sockets: what is sent, what comes back, bodies both ways, and the
/// errors.
@Suite("UVURLSessionTransport on sockets")
struct TransportTests {
    @Test("GET with path and query: the JSON body with its known length; the fields and target as sent")
    func getJSON() async throws {
        try await withPetStore { _, transport, server in
            let (response, body) = try await transport.send(
                operation(.get, "/pets/3?verbose=true"), body: nil, baseURL: server.baseURL, operationID: "getPet")
            #expect(response.status == .ok)
            #expect(response.headerFields[.contentType] == "application/json")
            let json = #"{"id": 3, "name": "pet-3", "verbose": true}"#
            #expect(body?.length == .known(Int64(json.utf8.count)))
            #expect(try await text(body) == json)

            var echo = operation(.get, "/echo/a%20b/c?x=1&y=%26")
            echo.headerFields[HTTPField.Name("X-Trace")!] = "t-1"
            let (_, echoed) = try await transport.send(echo, body: nil, baseURL: server.baseURL, operationID: "echo")
            let fields = try await JSONSerialization.jsonObject(with: Data(text(echoed).utf8)) as? [String: Any]
            #expect(fields?["target"] as? String == "/api/echo/a%20b/c?x=1&y=%26")
            let headers = fields?["headers"] as? [String: String]
            #expect(headers?["x-trace"] == "t-1")
            #expect(headers?["host"] == "127.0.0.1:\(server.port)")
            #expect(headers?["accept"] == "application/json")
        }
    }

    @Test("POST with a JSON body (collected, sent with Content-Length); a documented 404 is a response")
    func postAndErrorStatus() async throws {
        try await withPetStore { session, transport, server in
            var post = operation(.post, "/pets")
            post.headerFields[.contentType] = "application/json"
            let (created, createdBody) = try await transport.send(
                post, body: Body(#"{"name": "rex"}"#), baseURL: server.baseURL, operationID: "createPet")
            #expect(created.status == .created)
            #expect(try await text(createdBody) == #"{"id": 7, "name": "rex", "verbose": false}"#)
            let (missing, missingBody) = try await transport.send(
                operation(.get, "/pets/404"), body: nil, baseURL: server.baseURL, operationID: "getPet")
            #expect(missing.status == .notFound)
            #expect(try await text(missingBody) == #"{"code": 404, "message": "no pet 404"}"#)
            // Both bodies were read to the end: one keep-alive connection served all.
            #expect(await connectionCount(of: session) == 1)
        }
    }

    @Test("HEAD has no body, a 204 an empty one; both read to the end, the connection kept")
    func emptyBodies() async throws {
        try await withPetStore { session, transport, server in
            let (head, headBody) = try await transport.send(
                operation(.head, "/pets/1"), body: nil, baseURL: server.baseURL, operationID: "headPet")
            #expect(head.status == .ok)
            #expect(head.headerFields[.contentLength] == "42")
            #expect(headBody == nil)
            let (empty, emptyBody) = try await transport.send(
                operation(.get, "/empty"), body: nil, baseURL: server.baseURL, operationID: "empty")
            #expect(empty.status == .noContent)
            #expect(emptyBody?.length == .known(0))
            #expect(try await text(emptyBody) == "")
            #expect(await connectionCount(of: session) == 1)
        }
    }

    @Test("a gzip body is decoded by the session; its length is then unknown")
    func decodedLength() async throws {
        try await withPetStore { _, transport, server in
            let (response, body) = try await transport.send(
                operation(.get, "/gzip", accept: nil), body: nil, baseURL: server.baseURL, operationID: "gzip")
            #expect(response.headerFields[.contentEncoding] == "gzip")
            #expect(body?.length == .unknown)
            #expect(try await text(body) == String(repeating: "compressed ", count: 1000))
        }
    }

    @Test("streamed uploads: unknown length goes chunked, known length with Content-Length, a long body streamed")
    func uploads() async throws {
        try await withPetStore { _, transport, server in
            func put(_ body: Body) async throws -> [String: Any]? {
                var request = operation(.put, "/blobs")
                request.headerFields[.contentType] = "application/octet-stream"
                let (response, answer) = try await transport.send(
                    request, body: body, baseURL: server.baseURL, operationID: "uploadBlob")
                #expect(response.status == .ok)
                return try await JSONSerialization.jsonObject(with: Data(text(answer).utf8)) as? [String: Any]
            }
            let unknown = PatternProducer(count: 300_000)
            let chunked = try await put(Body(unknown, length: .unknown, iterationBehavior: .single))
            #expect(chunked?["received"] as? Int == 300_000)
            #expect(chunked?["sum"] as? Int == unknown.expectedSum)
            #expect(chunked?["chunked"] as? Bool == true)

            let known = PatternProducer(count: 200_000, chunk: 10_240)
            let counted = try await put(Body(known, length: .known(200_000), iterationBehavior: .single))
            #expect(counted?["received"] as? Int == 200_000)
            #expect(counted?["sum"] as? Int == known.expectedSum)
            #expect(counted?["chunked"] as? Bool == false)

            // In memory and repeatable but over the 64 KiB limit: streamed too.
            let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0) }
            let long = try await put(Body(bytes))
            #expect(long?["received"] as? Int == 100_000)
            #expect(long?["chunked"] as? Bool == false)
        }
    }

    @Test("a body that says more than it has fails with requestBodyLengthMismatch")
    func shortBody() async throws {
        try await withPetStore { _, transport, server in
            let producer = PatternProducer(count: 1000)
            let error = await thrownError {
                try await transport.send(operation(.put, "/blobs"),
                                         body: Body(producer, length: .known(5000), iterationBehavior: .single),
                                         baseURL: server.baseURL, operationID: "uploadBlob")
            }
            #expect((error as? UVURLError)?.code == .requestBodyLengthMismatch)
        }
    }

    @Test("a body that throws fails the upload with requestBodyFailed, naming the error")
    func failingBody() async throws {
        struct Broken: Error, CustomStringConvertible {
            var description: String { "the producer broke" }
        }
        try await withPetStore { _, transport, server in
            let chunks = AsyncThrowingStream<Body.ByteChunk, any Error> { continuation in
                continuation.yield([1, 2, 3][...])
                continuation.finish(throwing: Broken())
            }
            let error = await thrownError {
                try await transport.send(operation(.put, "/blobs"), body: Body(chunks, length: .unknown),
                                         baseURL: server.baseURL, operationID: "uploadBlob")
            }
            #expect((error as? UVURLError)?.code == .requestBodyFailed)
            #expect((error as? UVURLError)?.detail?.contains("the producer broke") == true, "\(String(describing: error))")
        }
    }

    @Test("upload backpressure: a server that does not read stops the body's producer; then all arrives")
    func uploadBackpressure() async throws {
        try await withPetStore { session, transport, server in
            let total = 32 * 1024 * 1024
            let producer = PatternProducer(count: total)
            let upload = Task {
                try await transport.send(operation(.put, "/blobs?hold=1"),
                                         body: Body(producer, length: .unknown, iterationBehavior: .single),
                                         baseURL: server.baseURL, operationID: "uploadBlob")
            }
            #expect(await eventually { server.holdingCount == 1 })
            let stalled = await settledValue { producer.pulledBytes }
            // The kernel buffers of both sides (a few hundred KiB) and one chunk in flight.
            #expect(stalled > 0 && stalled < 8 * 1024 * 1024, "pulled \(stalled) of \(total) while the server held")
            let other = UVURLSessionTransport(session: UVURLSession(loop: session.loop))
            let (released, _) = try await other.send(operation(.post, "/release"), body: nil,
                                                     baseURL: server.baseURL, operationID: "release")
            #expect(released.status == .noContent)
            let (response, answer) = try await upload.value
            #expect(response.status == .ok)
            let json = try await JSONSerialization.jsonObject(with: Data(text(answer).utf8)) as? [String: Any]
            #expect(json?["received"] as? Int == total)
            #expect(json?["sum"] as? Int == producer.expectedSum)
        }
    }

    @Test("download backpressure: a body nobody pulls stops the socket and the server; then the rest arrives intact")
    func downloadBackpressure() async throws {
        try await withPetStore { session, transport, server in
            let total = 32 * 1024 * 1024
            let (response, body) = try await transport.send(
                operation(.get, "/blobs/\(total)", accept: "application/octet-stream"), body: nil,
                baseURL: server.baseURL, operationID: "downloadBlob")
            #expect(response.status == .ok)
            #expect(body?.length == .known(Int64(total)))
            var iterator = try #require(body).makeAsyncIterator()
            var received = 0
            var intact = true
            func take(_ chunk: Body.ByteChunk) {
                if chunk.first != UInt8(truncatingIfNeeded: received)
                    || chunk.last != UInt8(truncatingIfNeeded: received + chunk.count - 1) {
                    intact = false
                }
                received += chunk.count
            }
            for _ in 0..<3 {
                if let chunk = try await iterator.next() { take(chunk) }
            }
            let stalled = await settledValue { server.sentByteCount }
            #expect(stalled > 0 && stalled < 8 * 1024 * 1024, "the server sent \(stalled) of \(total) while nobody read")
            #expect(await onLoop(session.loop) { session.engine.readingConnectionCount } == 0)
            while let chunk = try await iterator.next() { take(chunk) }
            #expect(received == total)
            #expect(intact)
        }
    }

    @Test("on the loop's executor the operation and its body run on the loop thread")
    func onTheLoop() async throws {
        try await withPetStore { session, transport, server in
            let loop = session.loop
            let (threads, length) = try await Task(executorPreference: loop) { () async throws -> ([Bool], Int) in
                var threads = [loop.isInLoop]
                let (_, body) = try await transport.send(operation(.get, "/blobs/300000"), body: nil,
                                                         baseURL: server.baseURL, operationID: "downloadBlob")
                threads.append(loop.isInLoop)
                var length = 0
                for try await chunk in try #require(body) {
                    threads.append(loop.isInLoop)
                    length += chunk.count
                }
                return (threads, length)
            }.value
            #expect(length == 300_000)
            #expect(threads.allSatisfy { $0 }, "\(threads)")
        }
    }

    @Test("cancelling the task that waits for the head: CancellationError, the request cancelled")
    func cancelBeforeHead() async throws {
        try await withPetStore { session, transport, server in
            let waiting = Task {
                try await transport.send(operation(.put, "/blobs?hold=1"), body: Body("x"),
                                         baseURL: server.baseURL, operationID: "uploadBlob")
            }
            #expect(await eventually { server.holdingCount == 1 })
            waiting.cancel()
            let error = await thrownError { try await waiting.value }
            #expect(error is CancellationError)
            #expect(await eventually { await connectionCount(of: session) == 0 })
            _ = try await transport.send(operation(.post, "/release"), body: nil, baseURL: server.baseURL,
                                         operationID: "release")
        }
    }

    @Test("cancelling the task that reads the body: CancellationError, the connection closed, the next request served")
    func cancelMidBody() async throws {
        try await withPetStore { session, transport, server in
            let (_, body) = try await transport.send(operation(.get, "/stall"), body: nil, baseURL: server.baseURL,
                                                     operationID: "stall")
            let reader = Task {
                var count = 0
                for try await chunk in try #require(body) { count += chunk.count }
                return count
            }
            #expect(await eventually { await onLoop(session.loop) { session.engine.readingConnectionCount } == 1 })
            reader.cancel()
            let error = await thrownError { try await reader.value }
            #expect(error is CancellationError)
            #expect(await eventually { await connectionCount(of: session) == 0 })
            let (next, _) = try await transport.send(operation(.head, "/pets/1"), body: nil, baseURL: server.baseURL,
                                                     operationID: "headPet")
            #expect(next.status == .ok)
        }
    }

    @Test("dropping a body before its end cancels the request and closes its connection")
    func droppedBody() async throws {
        try await withPetStore { session, transport, server in
            do {
                let (_, body) = try await transport.send(operation(.get, "/blobs/10000000"), body: nil,
                                                         baseURL: server.baseURL, operationID: "downloadBlob")
                var iterator = try #require(body).makeAsyncIterator()
                _ = try await iterator.next()
            }
            #expect(await eventually { await connectionCount(of: session) == 0 })
        }
    }

    @Test("transport failures throw the session's UVURLError: a refused connection, a bad server URL")
    func failures() async throws {
        try await withPetStore { _, transport, _ in
            let port = try Loopback.freePort()
            let refused = await thrownError {
                try await transport.send(operation(.get, "/pets/1"), body: nil,
                                         baseURL: URL(string: "http://127.0.0.1:\(port)/api")!, operationID: "getPet")
            }
            #expect((refused as? UVURLError)?.code == .cannotConnectToHost)
            #expect((refused as? UVURLError)?.underlyingErrorName == "UV_ECONNREFUSED")
            let unsupported = await thrownError {
                try await transport.send(operation(.get, "/pets/1"), body: nil,
                                         baseURL: URL(string: "ftp://127.0.0.1/api")!, operationID: "getPet")
            }
            #expect((unsupported as? UVURLError)?.code == .unsupportedURL)
        }
    }
}
#endif
