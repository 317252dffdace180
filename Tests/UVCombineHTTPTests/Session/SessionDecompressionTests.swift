import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// A head with `Content-Encoding` and `Content-Length` for `body`, then
/// `body`.
private func encodedResponse(_ body: [UInt8], encoding: String = "gzip", fields: [String] = []) -> [UInt8] {
    var head = "HTTP/1.1 200 OK\r\nContent-Encoding: \(encoding)\r\n"
    for field in fields { head += field + "\r\n" }
    head += "Content-Length: \(body.count)\r\n\r\n"
    return Array(head.utf8) + body
}

private func gzipResponse(_ body: [UInt8], status: HTTPResponse.Status = .ok, fault: TestHTTPServer.Fault? = nil) -> TestHTTPServer.Response {
    TestHTTPServer.Response(status: status, headerFields: [.contentEncoding: "gzip", .contentType: "text/plain"],
                            body: body, fault: fault)
}

/// The concatenated body parts of a streamed response.
private func streamedBody(_ tracker: PartsTracker) -> [UInt8] {
    var bytes: [UInt8] = []
    for case .body(let data) in tracker.values { bytes += data }
    return bytes
}

/// Response decompression (issue 19): `Accept-Encoding` sent by default,
/// gzip and deflate bodies decoded as they arrive, demand still driving
/// the socket, corrupt streams failing the task with the pool intact.
@Suite("UVURLSession decompression")
struct SessionDecompressionTests {
    static let text = compressibleText(300_000)

    // MARK: On the fake transport (exact reads, exact demand)

    @Test("Accept-Encoding: gzip, deflate by default; a gzip body is decoded; the head is as the server sent it")
    func defaultHeaderAndDecoding() {
        withFakeSession { loop, fake, session in
            let encoded = compressed(Self.text, .gzip)
            var outcome: Result<(data: Data, response: HTTPResponse), UVURLError>?
            let cancellable = session.dataTaskPublisher(for: exampleURL).sink(
                receiveCompletion: { if case .failure(let error) = $0 { outcome = .failure(error) } },
                receiveValue: { outcome = .success($0) })
            fake.last.accept()
            #expect(fake.last.writtenText.contains("\r\nAccept-Encoding: gzip, deflate\r\n"))
            fake.last.respond(bytes: encodedResponse(encoded))
            let value = try? outcome?.get()
            #expect(value?.data == Data(Self.text))
            #expect(value?.response.headerFields[.contentEncoding] == "gzip")
            #expect(value?.response.headerFields[.contentLength] == "\(encoded.count)", "the encoded length, as sent")
            #expect(session.engine.connectionCount == 1, "kept alive")
            _ = cancellable
        }
    }

    @Test("the caller's Accept-Encoding is sent as given (no second one) and a gzip body is still decoded, as URLSession does")
    func callersAcceptEncoding() {
        withFakeSession { _, fake, session in
            var request = HTTPRequest(method: .get, scheme: "http", authority: "example.com", path: "/")
            request.headerFields[.acceptEncoding] = "gzip;q=1.0, identity;q=0.5"
            let publisher = session.dataTaskPublisher(for: request)
            #expect(publisher.request.headerFields[values: .acceptEncoding] == ["gzip;q=1.0, identity;q=0.5"])
            var data: Data?
            let cancellable = publisher.sink(receiveCompletion: { _ in }, receiveValue: { data = $0.data })
            fake.last.accept()
            #expect(fake.last.writtenText.components(separatedBy: "Accept-Encoding").count == 2)
            #expect(fake.last.writtenText.contains("\r\nAccept-Encoding: gzip;q=1.0, identity;q=0.5\r\n"))
            fake.last.respond(bytes: encodedResponse(compressed(Array("hello".utf8), .gzip)))
            #expect(data == Data("hello".utf8))
            _ = cancellable
        }
    }

    @Test("decompressesResponses = false: no Accept-Encoding, the body as it came")
    func optOut() {
        var configuration = UVURLSession.Configuration()
        configuration.decompressesResponses = false
        withFakeSession(configuration: configuration) { _, fake, session in
            let encoded = compressed(Self.text, .gzip)
            var data: Data?
            let cancellable = session.dataTaskPublisher(for: exampleURL)
                .sink(receiveCompletion: { _ in }, receiveValue: { data = $0.data })
            fake.last.accept()
            #expect(!fake.last.writtenText.contains("Accept-Encoding"))
            fake.last.respond(bytes: encodedResponse(encoded))
            #expect(data == Data(encoded))
            _ = cancellable
        }
    }

    @Test("deflate, zlib-wrapped and raw; x-gzip; an unknown coding is delivered as it came")
    func codings() {
        withFakeSession { _, fake, session in
            let cases: [(encoding: String, body: [UInt8], expected: [UInt8])] = [
                ("deflate", compressed(Self.text, .zlib), Self.text),
                ("deflate", compressed(Self.text, .raw), Self.text),
                ("x-gzip", compressed(Self.text, .gzip), Self.text),
                ("br", [1, 2, 3], [1, 2, 3]),
            ]
            for (index, item) in cases.enumerated() {
                var data: Data?
                let cancellable = session.dataTaskPublisher(for: exampleURL)
                    .sink(receiveCompletion: { _ in }, receiveValue: { data = $0.data })
                if index == 0 { fake.last.accept() }
                fake.last.respond(bytes: encodedResponse(item.body, encoding: item.encoding))
                #expect(data == Data(item.expected), "\(item.encoding)")
                _ = cancellable
            }
            #expect(fake.connections.count == 1)
        }
    }

    @Test("streaming: decoded parts of at most 64 KiB, one per unit of demand; reading stops while the subscriber has none")
    func streamingDemand() {
        withFakeSession { _, fake, session in
            let encoded = compressed(Self.text, .gzip)
            let tracker = PartsTracker(initialDemand: .max(2))
            session.bytesPublisher(for: exampleURL).subscribe(tracker)
            fake.last.accept()
            // The whole response in one read: one encoded run decodes
            // into five parts.
            #expect(encoded.count < 64 * 1024)
            fake.last.respond(bytes: encodedResponse(encoded))
            #expect(tracker.values.count == 2, "the head and one part")
            #expect(tracker.values.last?.data?.count == 64 * 1024)
            #expect(!fake.last.isReading, "paused")
            #expect(session.engine.heldResponseByteCount <= 2 * 64 * 1024)
            var requests = 0
            while tracker.completion == nil && requests < 20 {
                tracker.request(.max(1))
                requests += 1
            }
            #expect(tracker.completion == .finished)
            #expect(Data(streamedBody(tracker)) == Data(Self.text))
            #expect(tracker.values.count == 1 + (Self.text.count + 65535) / 65536)
            #expect(session.engine.heldResponseByteCount == 0)
            #expect(fake.connections.count == 1 && !fake.last.isClosed, "kept alive")
        }
    }

    @Test("streaming, paused mid-run with bytes of the next read: the decoder's rest, then the stash, then the end")
    func streamingAcrossReads() {
        withFakeSession { _, fake, session in
            let encoded = compressed(Self.text, .gzip)
            // Cut into uneven reads.
            var bytes = encodedResponse(encoded)
            let tracker = PartsTracker(initialDemand: .max(1))
            session.bytesPublisher(for: exampleURL).subscribe(tracker)
            fake.last.accept()
            fake.last.completeWrites()
            while !bytes.isEmpty {
                let count = min(bytes.count, 3001)
                fake.last.send(bytes: Array(bytes[..<count]))
                bytes.removeFirst(count)
            }
            var requests = 0
            while tracker.completion == nil && requests < 50 {
                tracker.request(.max(1))
                fake.last.pump()
                requests += 1
            }
            #expect(tracker.completion == .finished)
            #expect(Data(streamedBody(tracker)) == Data(Self.text))
        }
    }

    @Test("a decoded body over maximumResponseBodyLength fails with dataLengthExceedsMaximum")
    func decodedLengthLimit() {
        var configuration = UVURLSession.Configuration()
        configuration.maximumResponseBodyLength = 100_000
        withFakeSession(configuration: configuration) { _, fake, session in
            var failure: UVURLError?
            let cancellable = session.dataTaskPublisher(for: exampleURL).sink(
                receiveCompletion: { if case .failure(let error) = $0 { failure = error } }, receiveValue: { _ in })
            fake.last.accept()
            fake.last.respond(bytes: encodedResponse(compressed(Self.text, .gzip)))
            #expect(failure?.code == .dataLengthExceedsMaximum)
            #expect(failure?.detail == "decoded body exceeds the maximum of 100000 bytes")
            #expect(fake.last.isClosed)
            _ = cancellable
        }
    }

    // MARK: On sockets, against TestHTTPServer

    @Test("hand-made gzip and deflate, chunked + gzip, multi-member, on one keep-alive connection")
    func testServerBodies() throws {
        let multi = compressed(Array("one ".utf8), .gzip) + compressed(Array("two".utf8), .gzip)
        let server = try TestHTTPServer(routes: [
            "/gzip": gzipResponse(compressed(Self.text, .gzip)),
            "/deflate": TestHTTPServer.Response(headerFields: [.contentEncoding: "deflate"], body: compressed(Self.text, .zlib)),
            "/raw": TestHTTPServer.Response(headerFields: [.contentEncoding: "deflate"], body: compressed(Self.text, .raw)),
            "/chunked": gzipResponse(compressed(Self.text, .gzip), fault: .chunked(chunkSize: 777)),
            "/multi": gzipResponse(multi),
            "/plain": .text("plain"),
        ])
        defer { server.shutdown() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            for path in ["/gzip", "/deflate", "/raw", "/chunked"] {
                let outcome = fetch(session.dataTaskPublisher(for: server.url(path)), on: loop)
                #expect((try? outcome?.get())?.data == Data(Self.text), "\(path)")
            }
            #expect(fetch(session.dataTaskPublisher(for: server.url("/multi")), on: loop)?.text == "one two")
            #expect(fetch(session.dataTaskPublisher(for: server.url("/plain")), on: loop)?.text == "plain")
            #expect(server.connectionCount == 1)
            #expect(server.requests.allSatisfy { $0.headerFields[.acceptEncoding] == "gzip, deflate" })
        }
    }

    @Test("an empty gzip body, HEAD, 204 and 304 with Content-Encoding: empty data, no error, connection kept")
    func noBody() throws {
        let server = try TestHTTPServer { request in
            switch request.path {
            case "/empty": return gzipResponse([])
            case "/head": return gzipResponse(compressed(Self.text, .gzip))
            case "/204": return TestHTTPServer.Response(status: .noContent, headerFields: [.contentEncoding: "gzip", .contentLength: "0"])
            default:
                // 304 with the length the full response would have.
                return TestHTTPServer.Response(status: .notModified,
                                               headerFields: [.contentEncoding: "gzip", .contentLength: "1234"])
            }
        }
        defer { server.shutdown() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            #expect(fetch(session.dataTaskPublisher(for: server.url("/empty")), on: loop)?.text == "")
            var head = HTTPRequest(method: .head, scheme: "http", authority: "127.0.0.1:\(server.port)", path: "/head")
            head.headerFields[.userAgent] = "test"
            let headOutcome = fetch(session.dataTaskPublisher(for: head), on: loop)
            #expect(headOutcome?.text == "")
            #expect(headOutcome?.status == 200)
            #expect(fetch(session.dataTaskPublisher(for: server.url("/204")), on: loop)?.status == 204)
            let notModified = fetch(session.dataTaskPublisher(for: server.url("/304")), on: loop)
            #expect(notModified?.status == 304 && notModified?.text == "")
            #expect(server.connectionCount == 1)
        }
    }

    @Test("corrupt and truncated gzip fail with cannotDecodeContentData; the connection is closed, the pool serves the next request")
    func corruptAndTruncated() throws {
        var corrupt = compressed(Self.text, .gzip)
        corrupt[corrupt.count / 2] ^= 0xFF
        corrupt[corrupt.count / 2 + 1] ^= 0xFF
        let whole = compressed(Self.text, .gzip)
        let truncated = Array(whole[..<(whole.count - 100)])
        let server = try TestHTTPServer(routes: [
            "/corrupt": gzipResponse(corrupt),
            "/truncated": gzipResponse(truncated),
            "/truncated-chunked": gzipResponse(truncated, fault: .chunked(chunkSize: 1000)),
            "/not-gzip": gzipResponse(Array("this is not gzip".utf8)),
            "/ok": .text("ok"),
        ])
        defer { server.shutdown() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            var connections = 1
            for path in ["/corrupt", "/truncated", "/truncated-chunked", "/not-gzip"] {
                let error = fetch(session.dataTaskPublisher(for: server.url(path)), on: loop)?.error
                #expect(error?.code == .cannotDecodeContentData, "\(path)")
                if path.hasPrefix("/truncated") {
                    #expect(error?.detail == "the gzip stream is truncated")
                } else {
                    #expect(error?.detail?.hasPrefix("corrupt gzip stream (zlib: ") == true, "\(String(describing: error))")
                }
                #expect(fetch(session.dataTaskPublisher(for: server.url("/ok")), on: loop)?.text == "ok")
                #expect(server.connectionCount == connections + 1, "the failed exchange's connection was closed")
                connections += 1
            }
            // The streaming publisher fails the same way.
            let tracker = PartsTracker()
            session.bytesPublisher(for: server.url("/truncated")).subscribe(tracker)
            loop.run()
            if case .failure(let error) = tracker.completion {
                #expect(error.code == .cannotDecodeContentData)
            } else {
                Issue.record("streamed truncated gzip: \(String(describing: tracker.completion))")
            }
            #expect(session.engine.connectionCount <= 1)
        }
    }

    @Test("backpressure: a stalled subscriber of a gzip stream stops the socket; the server's send queue fills; then every byte")
    func backpressure() throws {
        // Hex digits: about 2:1 with gzip, so the encoded body is large.
        let random = pseudoRandomBytes(8 * 1024 * 1024, seed: 7)
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8](repeating: 0, count: random.count * 2)
        for (index, byte) in random.enumerated() {
            text[2 * index] = digits[Int(byte >> 4)]
            text[2 * index + 1] = digits[Int(byte & 15)]
        }
        let encoded = compressed(text, .gzip, level: 1)
        withRealLoop { loop in
            let bulk = try! BulkServer(loop: loop, response: encodedResponse(encoded))
            let session = UVURLSession(loop: loop)
            let tracker = PartsTracker(initialDemand: .max(3))
            session.bytesPublisher(for: URL(string: "http://127.0.0.1:\(bulk.port)/bulk")!).subscribe(tracker)
            loop.schedule(after: loop.now.advanced(by: .milliseconds(300))) { loop.stop() }
            _ = loop.run()
            #expect(tracker.values.count == 3, "the head and two decoded parts, then no demand")
            #expect(session.engine.readingConnectionCount == 0, "reading stopped")
            #expect(session.engine.heldResponseByteCount <= 2 * 64 * 1024,
                    "one decoded part and one read buffer's encoded rest at most: \(session.engine.heldResponseByteCount)")
            #expect(bulk.queuedBytes > encoded.count / 4, "the server could not send most of the body")
            tracker.request(.unlimited)
            loop.run()
            #expect(tracker.completion == .finished)
            #expect(Data(streamedBody(tracker)) == Data(text))
            bulk.close()
        }
    }
}
