import CUVCombineLazyLibraries
import HTTPTypes
import Testing
import UVCombineHTTP2
import UVCombineHTTPCore

/// The client connection against an nghttp2 server session in the same
/// process, bytes shuttled in memory.
@Suite("HTTP/2 client connection (in memory)")
struct HTTP2ConnectionTests {
    static func get(_ path: String = "/", fields: HTTPFields = [:]) -> HTTPRequest {
        HTTPRequest(method: .get, scheme: "http", authority: "example.test", path: path, headerFields: fields)
    }

    static func make(_ configuration: HTTP2Configuration = HTTP2Configuration(),
                     server: InMemoryServer = InMemoryServer()) throws -> (HTTP2ClientConnection, InMemoryServer, EventRecorder) {
        let client = try HTTP2ClientConnection(configuration: configuration)
        let recorder = EventRecorder()
        client.delegate = recorder
        return (client, server, recorder)
    }

    @Test("a GET: pseudo-headers, fields lowercased, connection fields left out; head, body, end")
    func simpleGet() throws {
        let (client, server, recorder) = try Self.make()
        var fields = HTTPFields()
        fields[HTTPField.Name("X-Trace")!] = "abc"
        fields[.connection] = "keep-alive"
        fields[HTTPField.Name("Keep-Alive")!] = "timeout=5"
        fields[.transferEncoding] = "chunked"
        let id = try client.openStream(Self.get("/index.html", fields: fields))
        #expect(id == HTTP2StreamID(1))
        InMemoryServer.pump(client, server)
        let request = try #require(server.requests[1])
        #expect(request.fields.map(\.0) == [":method", ":scheme", ":authority", ":path", "x-trace"])
        #expect(request.field(":path") == "/index.html")
        #expect(request.field(":authority") == "example.test")
        #expect(request.field("x-trace") == "abc")
        #expect(recorder.records.contains(.settings(maxConcurrentStreams: nil)))
        #expect(recorder.records.suffix(2) == [.head(1, 200), .end(1)])
        #expect(recorder.bodies[1] == Array("hello".utf8))
        #expect(client.openStreamCount == 0)
        #expect(client.canOpenStreams)
    }

    @Test("Host becomes :authority when the request has none; TE other than trailers is left out")
    func hostAndTE() throws {
        let (client, server, _) = try Self.make()
        var fields = HTTPFields()
        fields.append(HTTPField(name: HTTPField.Name("Host")!, value: "from-host.test"))
        fields.append(HTTPField(name: HTTPField.Name("TE")!, value: "gzip"))
        _ = try client.openStream(HTTPRequest(method: .get, scheme: "https", authority: nil, path: "/", headerFields: fields))
        var withTrailers = HTTPFields()
        withTrailers.append(HTTPField(name: HTTPField.Name("TE")!, value: "trailers"))
        _ = try client.openStream(Self.get(fields: withTrailers))
        InMemoryServer.pump(client, server)
        #expect(server.requests[1]?.fields.map(\.0) == [":method", ":scheme", ":authority", ":path"])
        #expect(server.requests[1]?.field(":authority") == "from-host.test")
        #expect(server.requests[3]?.field("te") == "trailers")
    }

    @Test("100 concurrent streams on one connection all complete")
    func hundredConcurrentStreams() throws {
        let (client, server, recorder) = try Self.make()
        server.respond = { id, _ in InMemoryServer.Response(body: Array(repeating: UInt8(id & 0xff), count: 1000)) }
        let ids = try (0..<100).map { _ in try client.openStream(Self.get()) }
        InMemoryServer.pump(client, server)
        #expect(Set(recorder.ended) == Set(ids.map(\.rawValue)))
        #expect(server.maxOpen > 1)
        for id in ids { #expect(recorder.bodies[id.rawValue] == Array(repeating: UInt8(id.rawValue & 0xff), count: 1000)) }
    }

    @Test("SETTINGS_MAX_CONCURRENT_STREAMS 1: reported, and streams reach the server one at a time")
    func maxConcurrentStreamsOne() throws {
        let server = InMemoryServer(settings: [(Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), 1)])
        let (client, _, recorder) = try Self.make(server: server)
        InMemoryServer.pump(client, server)
        #expect(recorder.records == [.settings(maxConcurrentStreams: 1)])
        #expect(client.peerSettings?.maxConcurrentStreams == 1)
        for _ in 0..<3 { _ = try client.openStream(Self.get()) }
        InMemoryServer.pump(client, server)
        #expect(recorder.ended == [1, 3, 5])
        #expect(server.maxOpen == 1)
    }

    @Test("demand is flow control: a stream nobody consumes stops at its window, the other flows; WINDOW_UPDATE only for the consumed one")
    func slowStreamDoesNotBlockFastOne() throws {
        var configuration = HTTP2Configuration()
        configuration.initialStreamWindowSize = 65_536
        let (client, server, recorder) = try Self.make(configuration)
        let size = 1 << 20
        server.respond = { _, _ in InMemoryServer.Response(body: Array(repeating: 7, count: size)) }
        let slow = try client.openStream(Self.get("/slow"))
        let fast = try client.openStream(Self.get("/fast"))
        recorder.held = [slow.rawValue]
        InMemoryServer.pump(client, server)
        #expect(recorder.bodies[fast.rawValue]?.count == size)
        #expect(recorder.ended == [fast.rawValue])
        #expect(recorder.bodies[slow.rawValue]?.count == 65_536)
        #expect(client.unconsumedByteCount(on: slow) == 65_536)
        #expect(server.windowUpdates[slow.rawValue] == nil)
        #expect((server.windowUpdates[fast.rawValue]?.reduce(0, +) ?? 0) >= size - 65_536)
        // The subscriber asks again: the window reopens and the rest comes.
        recorder.held = []
        client.consume(65_536, on: slow)
        InMemoryServer.pump(client, server)
        #expect(recorder.bodies[slow.rawValue]?.count == size)
        #expect(recorder.ended == [fast.rawValue, slow.rawValue])
        #expect((server.windowUpdates[slow.rawValue]?.count ?? 0) > 0)
    }

    @Test("a window at zero that opens later: nothing arrives until the consumer takes bytes")
    func zeroWindowOpensLater() throws {
        var configuration = HTTP2Configuration()
        configuration.initialStreamWindowSize = 16_384
        let (client, server, recorder) = try Self.make(configuration)
        server.respond = { _, _ in InMemoryServer.Response(body: Array(repeating: 1, count: 100_000)) }
        let id = try client.openStream(Self.get())
        recorder.held = [id.rawValue]
        InMemoryServer.pump(client, server)
        #expect(recorder.bodies[id.rawValue]?.count == 16_384)
        let again = InMemoryServer.pump(client, server)
        #expect(again.toClient == 0)
        recorder.held = []
        client.consume(16_384, on: id)
        InMemoryServer.pump(client, server)
        #expect(recorder.bodies[id.rawValue]?.count == 100_000)
        #expect(recorder.ended == [id.rawValue])
    }

    @Test("GOAWAY: streams above the last stream id fail retryable, those below complete, no new stream opens")
    func goAwaySplitsStreams() throws {
        let (client, server, recorder) = try Self.make()
        server.respond = { _, _ in nil }
        let ids = try (0..<5).map { _ in try client.openStream(Self.get()) }
        InMemoryServer.pump(client, server)
        #expect(server.completed == [1, 3, 5, 7, 9])
        server.goAway(lastStreamID: 3)
        server.submitResponse(1, .init(body: [1]))
        server.submitResponse(3, .init(body: [3]))
        InMemoryServer.pump(client, server)
        #expect(recorder.records.contains(.goAway(last: 3, code: .noError)))
        #expect(Set(recorder.ended) == [1, 3])
        for id in ids.dropFirst(2) {
            #expect(recorder.errors[id.rawValue]?.kind == .refusedStream)
            #expect(recorder.errors[id.rawValue]?.isRetryable == true)
        }
        #expect(!client.canOpenStreams)
        let closing = #expect(throws: HTTP2Error(.connectionClosing)) { try client.openStream(Self.get()) }
        #expect(closing?.detail == "GOAWAY received")
    }

    @Test("GOAWAY with an error code: the streams below it fail with .goAway when the connection ends")
    func goAwayWithErrorThenEnd() throws {
        let (client, server, recorder) = try Self.make()
        server.respond = { _, _ in nil }
        _ = try client.openStream(Self.get())
        _ = try client.openStream(Self.get())
        InMemoryServer.pump(client, server)
        server.goAway(lastStreamID: 1, code: .internalError)
        InMemoryServer.pump(client, server)
        #expect(recorder.records.contains(.failed(3, .refusedStream, retryable: true)))
        client.connectionEnded(detail: "UV_EOF")
        #expect(recorder.errors[1] == HTTP2Error(.goAway, errorCode: .internalError))
        #expect(recorder.errors[1]?.errorCode == .internalError)
        #expect(recorder.errors[1]?.urlError.code == .networkConnectionLost)
    }

    @Test("RST_STREAM from the server fails that stream only; REFUSED_STREAM is retryable")
    func serverResets() throws {
        let (client, server, recorder) = try Self.make()
        server.respond = { id, _ in id == 1 ? InMemoryServer.Response(body: [1]) : nil }
        for _ in 0..<3 { _ = try client.openStream(Self.get()) }
        InMemoryServer.pump(client, server)
        server.reset(3, code: .internalError)
        server.reset(5, code: .refusedStream)
        InMemoryServer.pump(client, server)
        #expect(recorder.ended == [1])
        #expect(recorder.records.contains(.failed(3, .streamReset, retryable: false)))
        #expect(recorder.errors[3]?.errorCode == .internalError)
        #expect(recorder.records.contains(.failed(5, .refusedStream, retryable: true)))
        #expect(client.canOpenStreams)
    }

    @Test("cancel sends RST_STREAM(CANCEL) and reports nothing more for the stream")
    func cancelSendsReset() throws {
        let (client, server, recorder) = try Self.make()
        server.respond = { _, _ in nil }
        let id = try client.openStream(Self.get())
        InMemoryServer.pump(client, server)
        client.cancelStream(id)
        client.cancelStream(id)
        server.submitResponse(id.rawValue, .init(body: [1, 2, 3]))
        InMemoryServer.pump(client, server)
        #expect(server.resets[id.rawValue] == HTTP2ErrorCode.cancel.rawValue)
        #expect(!recorder.records.contains { if case .head = $0 { true } else { false } })
        #expect(recorder.failed.isEmpty)
        #expect(client.openStreamCount == 0)
    }

    @Test("PING: the acknowledgement reports the round trip on the owner's clock")
    func pingRoundTrip() throws {
        let (client, server, recorder) = try Self.make()
        InMemoryServer.pump(client, server)
        client.sendPing(now: HTTPDeadline(uptimeNanoseconds: 1_000))
        InMemoryServer.pump(client, server, now: 5_000)
        #expect(recorder.records.last == .ping(4_000))
    }

    @Test("trailers and 1xx heads arrive in order")
    func trailersAndInformational() throws {
        let (client, server, recorder) = try Self.make()
        server.respond = { _, _ in
            InMemoryServer.Response(fields: [("content-type", "text/plain")], body: Array("body".utf8),
                                    trailers: [("grpc-status", "0")], informational: [103])
        }
        _ = try client.openStream(Self.get())
        InMemoryServer.pump(client, server)
        #expect(Array(recorder.records.dropFirst()) == [.informational(1, 103), .head(1, 200), .trailers(1, ["grpc-status: 0"]), .end(1)])
        #expect(recorder.heads[1]?.headerFields[.contentType] == "text/plain")
        #expect(recorder.bodies[1] == Array("body".utf8))
    }

    @Test("an upload larger than the server's window is sent whole, as WINDOW_UPDATEs allow")
    func uploadLargerThanWindow() throws {
        let server = InMemoryServer(settings: [(Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), 1000)])
        let (client, _, recorder) = try Self.make(server: server)
        let body = (0..<300_000).map { UInt8($0 % 251) }
        let id = try client.openStream(HTTPRequest(method: .post, scheme: "http", authority: "a", path: "/up"), body: .bytes(body))
        #expect(client.uploadWindow(on: id) == 65_535)  // before the server's SETTINGS
        InMemoryServer.pump(client, server)
        #expect(server.requests[id.rawValue]?.body == body)
        #expect(client.uploadWindow(on: id) == nil)  // the stream is gone
        #expect(recorder.ended == [id.rawValue])
    }

    @Test("a streamed upload: chunks after each uploadWanted, deferred in between, END_STREAM on finish")
    func streamedUpload() throws {
        let (client, server, recorder) = try Self.make()
        var chunksLeft = 5
        recorder.onUploadWanted = { connection, id in
            chunksLeft -= 1
            if chunksLeft > 0 {
                connection.appendUpload(Array(repeating: UInt8(chunksLeft), count: 50_000), to: id)
            } else {
                connection.finishUpload(id)
            }
        }
        let id = try client.openStream(HTTPRequest(method: .put, scheme: "http", authority: "a", path: "/up"), body: .streamed)
        InMemoryServer.pump(client, server)
        #expect(server.requests[id.rawValue]?.body.isEmpty == true)
        #expect(server.requests[id.rawValue]?.ended == false)
        client.appendUpload(Array(repeating: 9, count: 50_000), to: id)
        InMemoryServer.pump(client, server)
        #expect(server.requests[id.rawValue]?.body.count == 250_000)
        #expect(server.requests[id.rawValue]?.ended == true)
        #expect(recorder.ended == [id.rawValue])
    }

    @Test("requests without :path or :scheme are refused before anything is queued")
    func invalidRequests() throws {
        let (client, _, _) = try Self.make()
        let noPath = #expect(throws: HTTP2Error(.invalidRequest)) {
            try client.openStream(HTTPRequest(method: .get, scheme: "http", authority: "a", path: nil))
        }
        #expect(noPath?.detail == "the request has no :path")
        let noScheme = #expect(throws: HTTP2Error(.invalidRequest)) {
            try client.openStream(HTTPRequest(method: .get, scheme: nil, authority: "a", path: "/"))
        }
        #expect(noScheme?.detail == "the request has no :scheme")
        #expect(client.openStreamCount == 0)
    }

    @Test("the socket ends: open streams fail with connectionLost")
    func connectionEndedFailsStreams() throws {
        let (client, server, recorder) = try Self.make()
        server.respond = { _, _ in nil }
        _ = try client.openStream(Self.get())
        InMemoryServer.pump(client, server)
        client.connectionEnded(detail: "UV_ECONNRESET")
        #expect(recorder.records.last == .failed(1, .connectionLost, retryable: false))
        #expect(recorder.errors[1]?.detail == "UV_ECONNRESET")
        #expect(!client.canOpenStreams)
    }

    @Test("graceful shutdown: GOAWAY(NO_ERROR) goes out, open streams finish, then the connection is finished")
    func gracefulShutdown() throws {
        let (client, server, recorder) = try Self.make()
        server.respond = { _, _ in nil }
        let id = try client.openStream(Self.get())
        InMemoryServer.pump(client, server)
        client.shutdown()
        InMemoryServer.pump(client, server)
        #expect(server.goAways == [HTTP2ErrorCode.noError.rawValue])
        #expect(!client.isFinished)
        server.submitResponse(id.rawValue, .init(body: [1]))
        InMemoryServer.pump(client, server)
        #expect(recorder.ended == [1])
        #expect(client.isFinished)
    }
}
