import HTTPTypes
import Testing
import UVCombineHTTP2
import UVCombineHTTPCore

/// The connection's head cache (HTTP2HeadCache): a response whose status
/// and fields repeat the last final head is that head; any difference (a
/// field's value, the first or the last field, fewer or more fields, the
/// status) builds the head from what was received; 1xx heads and trailers
/// are collected as before and never replace it.
@Suite("HTTP/2 head cache")
struct HTTP2HeadCacheTests {
    static let date = ("date", "Sun, 29 Nov 2026 10:00:00 GMT")
    static let type = ("content-type", "text/plain")
    static let etag = ("etag", "\"6929c1a2-64\"")

    /// One stream at a time, each answered with `responses[n]`; the heads
    /// as received, in order.
    static func heads(_ responses: [InMemoryServer.Response]) throws -> (heads: [HTTPResponse], recorder: EventRecorder) {
        let (client, server, recorder) = try HTTP2ConnectionTests.make()
        var index = 0
        server.respond = { _, _ in
            defer { index += 1 }
            return responses[index]
        }
        var heads: [HTTPResponse] = []
        for _ in responses {
            let id = try client.openStream(HTTP2ConnectionTests.get())
            InMemoryServer.pump(client, server)
            heads.append(try #require(recorder.heads[id.rawValue]))
        }
        return (heads, recorder)
    }

    static func fields(_ pairs: [(String, String)]) -> [String] {
        pairs.map { "\($0.0): \($0.1)" }
    }

    static func fields(_ response: HTTPResponse) -> [String] {
        response.headerFields.map { "\($0.name.canonicalName): \($0.value)" }
    }

    @Test("a repeated head, then one differing in each place, each delivered as received")
    func differences() throws {
        let same = [Self.date, Self.type, Self.etag]
        let cases: [(Int, [(String, String)])] = [
            (200, same),
            (200, same),
            (200, [("date", "Sun, 29 Nov 2026 10:00:01 GMT"), Self.type, Self.etag]), // the first field's value
            (200, [("date", "Sun, 29 Nov 2026 10:00:01 GMT"), Self.type, ("etag", "\"other\"")]), // the last one's
            (200, [("date", "Sun, 29 Nov 2026 10:00:01 GMT"), Self.type]), // fewer
            (200, [("date", "Sun, 29 Nov 2026 10:00:01 GMT"), Self.type, ("x-extra", "1")]), // more
            (404, [("date", "Sun, 29 Nov 2026 10:00:01 GMT"), Self.type, ("x-extra", "1")]), // the status
            (404, [("date", "Sun, 29 Nov 2026 10:00:01 GMT"), Self.type, ("x-extra", "1")]),
            (200, []), // none
            (200, same),
        ]
        let (heads, _) = try Self.heads(cases.map { InMemoryServer.Response(status: $0.0, fields: $0.1) })
        for (index, (status, pairs)) in cases.enumerated() {
            #expect(heads[index].status.code == status, "response \(index)")
            #expect(Self.fields(heads[index]) == Self.fields(pairs), "response \(index)")
        }
    }

    @Test("1xx heads and trailers around a repeated head keep their own fields")
    func informationalAndTrailers() throws {
        let same = [Self.date, Self.type]
        let responses = [
            InMemoryServer.Response(fields: same),
            InMemoryServer.Response(fields: same, trailers: [("x-checksum", "1")], informational: [103]),
            InMemoryServer.Response(fields: same),
        ]
        let (heads, recorder) = try Self.heads(responses)
        #expect(heads.map(Self.fields) == Array(repeating: Self.fields(same), count: 3))
        #expect(recorder.records.contains(.informational(3, 103)))
        #expect(recorder.trailerFields[3].map { $0.map { "\($0.name.canonicalName): \($0.value)" } } == ["x-checksum: 1"])
    }
}
