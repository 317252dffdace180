import Foundation
import HTTPTypes
import Testing
import UVCombineHTTP
@testable import UVCombineHTTPCore

/// The request writer's framing for streamed bodies: a head announcing a
/// chunked body, the chunks, the last chunk.
@Suite("HTTPRequestWriter chunked bodies")
struct HTTPRequestWriterChunkedTests {
    static let target = HTTPRequest(method: .put, scheme: "http", authority: "example.com", path: "/up")

    @Test("a chunked head says Transfer-Encoding: chunked and no Content-Length, even for PUT")
    func chunkedHead() throws {
        var buffer: [UInt8] = []
        let result = try HTTPRequestWriter.appendHead(of: Self.target, framing: .chunked, to: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self)
            == "PUT /up HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n")
        #expect(result.byteCount == buffer.count)
        #expect(!result.closesConnection)
    }

    @Test("a length-framed head is the one appendHead(of:bodyLength:) writes")
    func lengthHead() throws {
        var framed: [UInt8] = []
        var plain: [UInt8] = []
        try HTTPRequestWriter.appendHead(of: Self.target, framing: .length(1234), to: &framed)
        try HTTPRequestWriter.appendHead(of: Self.target, bodyLength: 1234, to: &plain)
        #expect(framed == plain)
        #expect(String(decoding: framed, as: UTF8.self).contains("Content-Length: 1234\r\n"))
    }

    @Test("a Content-Length field with a chunked body is refused, and nothing is written")
    func contentLengthFieldRefused() {
        var request = Self.target
        request.headerFields[.contentLength] = "5"
        var buffer: [UInt8] = []
        #expect(throws: UVURLError(.invalidRequest)) {
            try HTTPRequestWriter.appendHead(of: request, framing: .chunked, to: &buffer)
        }
        #expect(buffer.isEmpty)
    }

    @Test("chunks: hex size, CRLF, bytes, CRLF; an empty chunk writes nothing; the last chunk ends the body",
          arguments: [(1, "1"), (15, "f"), (16, "10"), (255, "ff"), (4096, "1000"), (262_144, "40000"), (1_000_003, "f4243")])
    func chunk(count: Int, hex: String) {
        var buffer: [UInt8] = []
        HTTPRequestWriter.appendChunk([UInt8](repeating: 0x61, count: count), to: &buffer)
        let expected = Array("\(hex)\r\n".utf8) + [UInt8](repeating: 0x61, count: count) + Array("\r\n".utf8)
        #expect(buffer == expected)
    }

    @Test("an empty chunk writes nothing; the last chunk is 0 CRLF CRLF")
    func emptyAndLast() {
        var buffer: [UInt8] = []
        HTTPRequestWriter.appendChunk([UInt8](), to: &buffer)
        #expect(buffer.isEmpty)
        HTTPRequestWriter.appendLastChunk(to: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "0\r\n\r\n")
    }
}
