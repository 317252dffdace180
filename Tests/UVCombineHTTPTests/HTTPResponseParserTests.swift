import HTTPTypes
import Testing
import UVCombineHTTP
import UVCombineHTTPCore

/// One response and the events it must produce.
struct ParserCase: CustomTestStringConvertible, Sendable {
    var name: String
    var input: String
    var methods: [HTTPRequest.Method] = [.get]
    var requestCloses = false
    var eof = false
    var configuration = HTTPResponseParser.Configuration()
    var expected: [Seen]

    var testDescription: String { name }

    func run(chunks: [[UInt8]]) -> [Seen] {
        parse(chunks: chunks, methods: methods, requestCloses: requestCloses, eof: eof, configuration: configuration)
    }
}

private func limits(
    headerBytes: Int = 64 * 1024,
    headerCount: Int = 100,
    statusLine: Int = 8 * 1024,
    chunkLine: Int = 4 * 1024,
    body: Int? = nil
) -> HTTPResponseParser.Configuration {
    var configuration = HTTPResponseParser.Configuration()
    configuration.maximumHeaderBytes = headerBytes
    configuration.maximumHeaderCount = headerCount
    configuration.maximumStatusLineLength = statusLine
    configuration.maximumChunkLineLength = chunkLine
    configuration.maximumBodyLength = body
    return configuration
}

/// Well-formed responses.
let validParserCases: [ParserCase] = [
    ParserCase(
        name: "Content-Length body",
        input: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello",
        expected: [.head(200, "OK", ["Content-Length: 5", "Content-Type: text/plain"]), .text("hello"), .end(keepAlive: true)]
    ),
    ParserCase(
        name: "Content-Length 0",
        input: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
        expected: [.head(200, "OK", ["Content-Length: 0"]), .end(keepAlive: true)]
    ),
    ParserCase(
        name: "field names keep their case; value whitespace is trimmed",
        input: "HTTP/1.1 200 OK\r\ncontent-length: 2\r\nX-Odd-Case:   a  b \t\r\nX-Empty:\r\nX-Tab:\tv\r\n\r\nhi",
        expected: [
            .head(200, "OK", ["content-length: 2", "X-Odd-Case: a  b", "X-Empty: ", "X-Tab: v"]),
            .text("hi"), .end(keepAlive: true),
        ]
    ),
    ParserCase(
        name: "reason phrase with spaces",
        input: "HTTP/1.1 404 Not Found\r\nContent-Length: 1\r\n\r\nx",
        expected: [.head(404, "Not Found", ["Content-Length: 1"]), .text("x"), .end(keepAlive: true)]
    ),
    ParserCase(
        name: "missing reason phrase",
        input: "HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n",
        expected: [.head(200, "", ["Content-Length: 0"]), .end(keepAlive: true)]
    ),
    ParserCase(
        name: "empty reason phrase",
        input: "HTTP/1.1 500 \r\nContent-Length: 0\r\n\r\n",
        expected: [.head(500, "", ["Content-Length: 0"]), .end(keepAlive: true)]
    ),
    ParserCase(
        name: "status 999 is accepted",
        input: "HTTP/1.1 999 Odd\r\nContent-Length: 0\r\n\r\n",
        expected: [.head(999, "Odd", ["Content-Length: 0"]), .end(keepAlive: true)]
    ),
    ParserCase(
        name: "Connection: close",
        input: "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx",
        expected: [.head(200, "OK", ["Connection: close", "Content-Length: 1"]), .text("x"), .end(keepAlive: false)]
    ),
    ParserCase(
        name: "Connection list containing close, any case",
        input: "HTTP/1.1 200 OK\r\nConnection: Keep-Alive, CLOSE\r\nContent-Length: 0\r\n\r\n",
        expected: [.head(200, "OK", ["Connection: Keep-Alive, CLOSE", "Content-Length: 0"]), .end(keepAlive: false)]
    ),
    ParserCase(
        name: "request said Connection: close",
        input: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
        requestCloses: true,
        expected: [.head(200, "OK", ["Content-Length: 0"]), .end(keepAlive: false)]
    ),
    ParserCase(
        name: "HTTP/1.0 closes by default",
        input: "HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx",
        expected: [.head(200, "OK", ["Content-Length: 1"]), .text("x"), .end(keepAlive: false)]
    ),
    ParserCase(
        name: "HTTP/1.0 with Connection: keep-alive",
        input: "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nx",
        expected: [.head(200, "OK", ["Connection: keep-alive", "Content-Length: 1"]), .text("x"), .end(keepAlive: true)]
    ),
    ParserCase(
        name: "close-delimited body ends at end of input",
        input: "HTTP/1.0 200 OK\r\n\r\nall of it\r\n\r\nstill body",
        eof: true,
        expected: [.head(200, "OK"), .text("all of it\r\n\r\nstill body"), .end(keepAlive: false)]
    ),
    ParserCase(
        name: "close-delimited HTTP/1.1 body never keeps the connection",
        input: "HTTP/1.1 200 OK\r\n\r\nxyz",
        eof: true,
        expected: [.head(200, "OK"), .text("xyz"), .end(keepAlive: false)]
    ),
    ParserCase(
        name: "close-delimited empty body",
        input: "HTTP/1.1 200 OK\r\n\r\n",
        eof: true,
        expected: [.head(200, "OK"), .end(keepAlive: false)]
    ),
    ParserCase(
        name: "chunked body with extensions",
        input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;name=value;flag\r\n world\r\n0\r\n\r\n",
        expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .text("hello world"), .end(keepAlive: true)]
    ),
    ParserCase(
        name: "chunked: whitespace before an extension, uppercase hex, leading zeros",
        input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n00A \t; a=\"q v\"\r\n0123456789\r\n000\r\n\r\n",
        expected: [.head(200, "OK", ["Transfer-Encoding: Chunked"]), .text("0123456789"), .end(keepAlive: true)]
    ),
    ParserCase(
        name: "chunked body with trailers",
        input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX-Checksum: 42\r\nX-Other: a\r\n\r\n",
        expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .text("abc"), .end(keepAlive: true)]
    ),
    ParserCase(
        name: "chunked body carrying CRLF bytes",
        input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n\r\n\r\n\r\n0\r\n\r\n",
        expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .text("\r\n\r\n"), .end(keepAlive: true)]
    ),
    ParserCase(
        name: "chunked in HTTP/1.0 is parsed but not reused",
        input: "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n",
        expected: [
            .head(200, "OK", ["Connection: keep-alive", "Transfer-Encoding: chunked"]), .text("x"), .end(keepAlive: false),
        ]
    ),
    ParserCase(
        name: "HEAD response has no body despite Content-Length",
        input: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n",
        methods: [.head],
        expected: [.head(200, "OK", ["Content-Length: 100"]), .end(keepAlive: true)]
    ),
    ParserCase(
        name: "HEAD response has no body despite chunked",
        input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
        methods: [.head],
        expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .end(keepAlive: true)]
    ),
    ParserCase(
        name: "204 has no body",
        input: "HTTP/1.1 204 No Content\r\n\r\n",
        expected: [.head(204, "No Content"), .end(keepAlive: true)]
    ),
    ParserCase(
        name: "304 has no body despite Content-Length",
        input: "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n",
        expected: [.head(304, "Not Modified", ["Content-Length: 10"]), .end(keepAlive: true)]
    ),
    ParserCase(
        name: "100 Continue is skipped",
        input: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok",
        methods: [.post],
        expected: [.head(201, "Created", ["Content-Length: 2"]), .text("ok"), .end(keepAlive: true)]
    ),
    ParserCase(
        name: "several interim responses are skipped",
        input: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
        expected: [.head(200, "OK", ["Content-Length: 0"]), .end(keepAlive: true)]
    ),
    ParserCase(
        name: "repeated identical Content-Length",
        input: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc",
        expected: [.head(200, "OK", ["Content-Length: 3", "Content-Length: 3"]), .text("abc"), .end(keepAlive: true)]
    ),
    ParserCase(
        name: "Content-Length list of identical values",
        input: "HTTP/1.1 200 OK\r\nContent-Length: 3 , 3,3\r\n\r\nabc",
        expected: [.head(200, "OK", ["Content-Length: 3 , 3,3"]), .text("abc"), .end(keepAlive: true)]
    ),
    ParserCase(
        name: "obs-text in values and reason",
        input: "HTTP/1.1 200 \u{e9}t\u{e9}\r\nX-Name: caf\u{e9}\r\nContent-Length: 0\r\n\r\n",
        expected: [.head(200, "\u{e9}t\u{e9}", ["X-Name: caf\u{e9}", "Content-Length: 0"]), .end(keepAlive: true)]
    ),
    ParserCase(
        name: "two responses on one keep-alive connection",
        input: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nb\r\n0\r\n\r\n",
        methods: [.get, .get],
        expected: [
            .head(200, "OK", ["Content-Length: 1"]), .text("a"), .end(keepAlive: true),
            .head(404, "Not Found", ["Transfer-Encoding: chunked"]), .text("b"), .end(keepAlive: true),
        ]
    ),
    ParserCase(
        name: "body within the maximum",
        input: "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nabcd",
        configuration: limits(body: 4),
        expected: [.head(200, "OK", ["Content-Length: 4"]), .text("abcd"), .end(keepAlive: true)]
    ),
    // RFC 9112 section 5.2: obs-fold in a response is replaced with SP
    // before the field is interpreted.
    ParserCase(
        name: "obs-fold: SP replaces the fold",
        input: "HTTP/1.1 200 OK\r\nX-A: a\r\n b\r\nContent-Length: 0\r\n\r\n",
        expected: [.head(200, "OK", ["X-A: a b", "Content-Length: 0"]), .end(keepAlive: true)]
    ),
    ParserCase(
        name: "obs-fold: several continuation lines, HTAB, whitespace around each",
        input: "HTTP/1.1 200 OK\r\nX-A: a  \r\n \t b \r\n\tc\r\nX-B: d\r\nContent-Length: 0\r\n\r\n",
        expected: [.head(200, "OK", ["X-A: a b c", "X-B: d", "Content-Length: 0"]), .end(keepAlive: true)]
    ),
    ParserCase(
        name: "obs-fold: an empty first line and a blank continuation",
        input: "HTTP/1.1 200 OK\r\nX-A:\r\n  \r\n b\r\nContent-Length: 0\r\n\r\n",
        expected: [.head(200, "OK", ["X-A: b", "Content-Length: 0"]), .end(keepAlive: true)]
    ),
    ParserCase(
        name: "obs-fold: a folded framing field is interpreted after unfolding",
        input: "HTTP/1.1 200 OK\r\nConnection:\r\n close\r\nContent-Length:\r\n 3\r\n\r\nabc",
        expected: [.head(200, "OK", ["Connection: close", "Content-Length: 3"]), .text("abc"), .end(keepAlive: false)]
    ),
    ParserCase(
        name: "obs-fold in an interim response and in trailers",
        input: "HTTP/1.1 103 Early Hints\r\nLink: </a>;\r\n rel=preload\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\nX-T: a\r\n b\r\n\r\n",
        expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .text("x"), .end(keepAlive: true)]
    ),
    ParserCase(
        name: "exactly at the header limits",
        input: "HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\n\r\n",
        eof: true,
        configuration: limits(headerBytes: 31, headerCount: 2, statusLine: 15),
        expected: [.head(200, "OK", ["A: 1", "B: 2"]), .end(keepAlive: false)]
    ),
]

/// Malformed responses, each with its exact error.
let malformedParserCases: [ParserCase] = [
    // Line endings and the status line.
    ParserCase(name: "bare LF", input: "HTTP/1.1 200 OK\nContent-Length: 0\n\n", expected: [.bad("bare LF in header section")]),
    ParserCase(name: "bare CR", input: "HTTP/1.1 200 OK\rX", expected: [.bad("CR not followed by LF in header section")]),
    ParserCase(name: "empty first line", input: "\r\nHTTP/1.1 200 OK\r\n\r\n", expected: [.bad("empty line before the status line")]),
    ParserCase(name: "HTTP/2.0", input: "HTTP/2.0 200 OK\r\n\r\n", expected: [.bad("unsupported HTTP version")]),
    ParserCase(name: "HTTP/1.2", input: "HTTP/1.2 200 OK\r\n\r\n", expected: [.bad("unsupported HTTP version")]),
    ParserCase(name: "not HTTP", input: "ICY 200 OK\r\n\r\n", expected: [.bad("malformed status line")]),
    ParserCase(name: "lowercase http", input: "http/1.1 200 OK\r\n\r\n", expected: [.bad("malformed status line")]),
    ParserCase(name: "version only", input: "HTTP/1.1\r\n\r\n", expected: [.bad("malformed status line")]),
    ParserCase(name: "no space after version", input: "HTTP/1.1-200 OK\r\n\r\n", expected: [.bad("malformed status line")]),
    ParserCase(name: "two spaces after version", input: "HTTP/1.1  200 OK\r\n\r\n", expected: [.bad("malformed status code")]),
    ParserCase(name: "two-digit status", input: "HTTP/1.1 20 OK\r\n\r\n", expected: [.bad("malformed status code")]),
    ParserCase(name: "four-digit status", input: "HTTP/1.1 2000 OK\r\n\r\n", expected: [.bad("malformed status code")]),
    ParserCase(name: "status below 100", input: "HTTP/1.1 099 Low\r\n\r\n", expected: [.bad("malformed status code")]),
    ParserCase(name: "letters in status", input: "HTTP/1.1 2x0 OK\r\n\r\n", expected: [.bad("malformed status code")]),
    ParserCase(name: "control byte in reason", input: "HTTP/1.1 200 O\u{01}K\r\n\r\n", expected: [.bad("invalid byte in reason phrase")]),
    ParserCase(name: "101 upgrade", input: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", expected: [.bad("unexpected 101 Switching Protocols")]),
    // Field lines.
    // RFC 9112 section 2.2: whitespace before the first field line continues nothing.
    ParserCase(name: "whitespace before the first field", input: "HTTP/1.1 200 OK\r\n\tX-A: a\r\n\r\n", expected: [.bad("whitespace before the first header field")]),
    ParserCase(name: "space before the first field", input: "HTTP/1.1 200 OK\r\n X-A: a\r\nContent-Length: 0\r\n\r\n", expected: [.bad("whitespace before the first header field")]),
    ParserCase(name: "control byte in a continuation line", input: "HTTP/1.1 200 OK\r\nX-A: a\r\n b\u{01}\r\n\r\n", expected: [.bad("invalid byte in header field value")]),
    ParserCase(name: "folded Content-Length becomes two values", input: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n 4\r\n\r\nabcd", expected: [.bad("malformed Content-Length value")]),
    ParserCase(name: "space before colon", input: "HTTP/1.1 200 OK\r\nContent-Length : 0\r\n\r\n", expected: [.bad("whitespace between header field name and colon")]),
    ParserCase(name: "space in name", input: "HTTP/1.1 200 OK\r\nX A: v\r\n\r\n", expected: [.bad("invalid byte in header field name")]),
    ParserCase(name: "non-token byte in name", input: "HTTP/1.1 200 OK\r\nX(A): v\r\n\r\n", expected: [.bad("invalid byte in header field name")]),
    ParserCase(name: "line without colon", input: "HTTP/1.1 200 OK\r\nX-A v\r\n\r\n", expected: [.bad("header field line without a colon")]),
    ParserCase(name: "empty name", input: "HTTP/1.1 200 OK\r\n: v\r\n\r\n", expected: [.bad("empty header field name")]),
    ParserCase(name: "NUL in value", input: "HTTP/1.1 200 OK\r\nX-A: a\u{0}b\r\n\r\n", expected: [.bad("invalid byte in header field value")]),
    ParserCase(name: "DEL in value", input: "HTTP/1.1 200 OK\r\nX-A: a\u{7F}\r\n\r\n", expected: [.bad("invalid byte in header field value")]),
    ParserCase(name: "bare CR in value", input: "HTTP/1.1 200 OK\r\nX-A: a\rb\r\n\r\n", expected: [.bad("CR not followed by LF in header section")]),
    ParserCase(name: "bare LF in value", input: "HTTP/1.1 200 OK\r\nX-A: a\nb\r\n\r\n", expected: [.bad("bare LF in header section")]),
    // Content-Length and Transfer-Encoding.
    ParserCase(name: "conflicting Content-Length fields", input: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", expected: [.bad("conflicting Content-Length values")]),
    ParserCase(name: "conflicting Content-Length list", input: "HTTP/1.1 200 OK\r\nContent-Length: 3, 4\r\n\r\nabcd", expected: [.bad("conflicting Content-Length values")]),
    ParserCase(name: "non-numeric Content-Length", input: "HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n", expected: [.bad("malformed Content-Length value")]),
    ParserCase(name: "negative Content-Length", input: "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", expected: [.bad("malformed Content-Length value")]),
    ParserCase(name: "signed Content-Length", input: "HTTP/1.1 200 OK\r\nContent-Length: +1\r\n\r\nx", expected: [.bad("malformed Content-Length value")]),
    ParserCase(name: "Content-Length with inner space", input: "HTTP/1.1 200 OK\r\nContent-Length: 1 2\r\n\r\n", expected: [.bad("malformed Content-Length value")]),
    ParserCase(name: "hex Content-Length", input: "HTTP/1.1 200 OK\r\nContent-Length: 0x10\r\n\r\n", expected: [.bad("malformed Content-Length value")]),
    ParserCase(name: "empty Content-Length", input: "HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n", expected: [.bad("malformed Content-Length value")]),
    ParserCase(name: "comma-only Content-Length", input: "HTTP/1.1 200 OK\r\nContent-Length: ,\r\n\r\n", expected: [.bad("malformed Content-Length value")]),
    ParserCase(name: "overflowing Content-Length", input: "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n", expected: [.bad("Content-Length value overflows")]),
    ParserCase(name: "Content-Length with Transfer-Encoding", input: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", expected: [.bad("both Content-Length and Transfer-Encoding")]),
    ParserCase(name: "gzip transfer coding", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", expected: [.bad("unsupported Transfer-Encoding (only \"chunked\" is supported)")]),
    ParserCase(name: "gzip then chunked", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", expected: [.bad("unsupported Transfer-Encoding (only \"chunked\" is supported)")]),
    ParserCase(name: "chunked twice", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", expected: [.bad("unsupported Transfer-Encoding (only \"chunked\" is supported)")]),
    ParserCase(name: "empty Transfer-Encoding", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: \r\n\r\n", expected: [.bad("unsupported Transfer-Encoding (only \"chunked\" is supported)")]),
    // Chunked framing.
    ParserCase(name: "non-hex chunk size", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\ng\r\n", expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .bad("malformed chunk size")]),
    ParserCase(name: "empty chunk size", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .bad("malformed chunk size")]),
    ParserCase(name: "negative chunk size", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\n", expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .bad("malformed chunk size")]),
    ParserCase(name: "extension without size", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n;a\r\n", expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .bad("malformed chunk size")]),
    ParserCase(name: "trailing whitespace after size", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5 \r\nhello\r\n", expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .bad("malformed chunk size")]),
    ParserCase(name: "junk after size", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5 x\r\n", expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .bad("malformed chunk size")]),
    ParserCase(name: "overflowing chunk size", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n8000000000000000\r\n", expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .bad("chunk size overflows")]),
    // Found by the ChunkedDecoderFuzzer: each size fits an Int, their sum does not (this trapped).
    ParserCase(name: "chunk sizes summing past Int.max", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n7fffffffffffffff\r\n", expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .text("a"), .bad("chunked body length overflows")]),
    ParserCase(name: "bare LF after chunk size", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello", expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .bad("bare LF in chunk-size line")]),
    ParserCase(name: "CR without LF after chunk size", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\rhello", expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .bad("CR not followed by LF in chunk-size line")]),
    ParserCase(name: "control byte in chunk extension", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;a\u{01}\r\n", expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .bad("invalid byte in chunk extension")]),
    ParserCase(name: "chunk data longer than its size", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n0\r\n\r\n", expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .text("abc"), .bad("missing CRLF after chunk data")]),
    ParserCase(name: "chunk data followed by CR only", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\rX", expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .text("abc"), .bad("missing CRLF after chunk data")]),
    ParserCase(name: "whitespace before the first trailer", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n X-T: a\r\n\r\n", expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .bad("whitespace before the first trailer field")]),
    ParserCase(name: "control byte in a folded trailer", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: a\r\n \u{7F}\r\n\r\n", expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .bad("invalid byte in header field value")]),
    ParserCase(name: "bare LF in trailers", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: a\n\r\n", expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .bad("bare LF in header section")]),
    ParserCase(name: "trailer without colon", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nnonsense\r\n\r\n", expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .bad("header field line without a colon")]),
    // Limits.
    ParserCase(name: "header section too large", input: "HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\n\r\n", configuration: limits(headerBytes: 30), expected: [.bad("header section exceeds 30 bytes")]),
    ParserCase(name: "too many header fields", input: "HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", configuration: limits(headerCount: 2), expected: [.bad("more than 2 header fields")]),
    ParserCase(name: "status line too long", input: "HTTP/1.1 200 OK, fine\r\n\r\n", configuration: limits(statusLine: 15), expected: [.bad("status line exceeds 15 bytes")]),
    ParserCase(name: "trailers too large", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-Trailer: 0123456789012345678901234567890123456789012345678901\r\n\r\n", configuration: limits(headerBytes: 60), expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .bad("trailer section exceeds 60 bytes")]),
    ParserCase(name: "too many trailers", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nA: 1\r\nB: 2\r\n\r\n", configuration: limits(headerCount: 1), expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .bad("more than 1 header fields")]),
    ParserCase(name: "chunk-size line too long", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;aaaaaaaaaa\r\nhello\r\n0\r\n\r\n", configuration: limits(chunkLine: 8), expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .bad("chunk-size line exceeds 8 bytes")]),
    ParserCase(name: "Content-Length over the body maximum", input: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", configuration: limits(body: 4), expected: [.error(.dataLengthExceedsMaximum, "Content-Length 5 exceeds the maximum of 4 bytes")]),
    ParserCase(name: "chunked body over the maximum", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n", configuration: limits(body: 4), expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .text("abc"), .error(.dataLengthExceedsMaximum, "body exceeds the maximum of 4 bytes")]),
    ParserCase(name: "chunk sizes summing past Int.max with a body maximum", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n7fffffffffffffff\r\n", configuration: limits(body: 100), expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .text("a"), .error(.dataLengthExceedsMaximum, "body exceeds the maximum of 100 bytes")]),
    ParserCase(name: "close-delimited body over the maximum", input: "HTTP/1.1 200 OK\r\n\r\nabcdef", eof: true, configuration: limits(body: 4), expected: [.head(200, "OK"), .text("abcd"), .error(.dataLengthExceedsMaximum, "body exceeds the maximum of 4 bytes")]),
    // End of input too early.
    ParserCase(name: "closed before the response", input: "", eof: true, expected: [.error(.networkConnectionLost, "connection closed before the response began")]),
    ParserCase(name: "closed inside the head", input: "HTTP/1.1 200 OK\r\nContent-", eof: true, expected: [.error(.networkConnectionLost, "connection closed inside the response head")]),
    ParserCase(name: "closed after an interim response", input: "HTTP/1.1 100 Continue\r\n\r\n", eof: true, expected: [.error(.networkConnectionLost, "connection closed inside the response head")]),
    ParserCase(name: "truncated Content-Length body", input: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", eof: true, expected: [.head(200, "OK", ["Content-Length: 10"]), .text("abc"), .error(.networkConnectionLost, "truncated body: connection closed before Content-Length bytes arrived")]),
    ParserCase(name: "truncated chunked body", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", eof: true, expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .text("ab"), .error(.networkConnectionLost, "truncated body: connection closed inside the chunked body")]),
    ParserCase(name: "closed before the last chunk", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n", eof: true, expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .text("ab"), .error(.networkConnectionLost, "truncated body: connection closed inside the chunked body")]),
    ParserCase(name: "closed inside the trailers", input: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: 1\r\n", eof: true, expected: [.head(200, "OK", ["Transfer-Encoding: chunked"]), .error(.networkConnectionLost, "truncated body: connection closed inside the chunked body")]),
    // Bytes nobody asked for.
    ParserCase(name: "bytes after the response", input: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naXYZ", expected: [.head(200, "OK", ["Content-Length: 1"]), .text("a"), .end(keepAlive: true), .bad("unexpected bytes while no response is expected")]),
]

@Suite("HTTPResponseParser")
struct HTTPResponseParserTests {
    @Test(arguments: validParserCases)
    func parsesWellFormedResponses(_ c: ParserCase) {
        #expect(c.run(chunks: [Array(c.input.utf8)]) == c.expected)
    }

    @Test(arguments: malformedParserCases)
    func refusesMalformedResponses(_ c: ParserCase) {
        #expect(c.run(chunks: [Array(c.input.utf8)]) == c.expected)
    }

    @Test func retryEligibilityIsVisible() throws {
        var parser = HTTPResponseParser()
        parser.expectResponse(to: .get)
        #expect(!parser.hasReceivedResponseBytes)
        _ = try Array("H".utf8).withUnsafeBytes { bytes in try parser.next(bytes) }
        #expect(parser.hasReceivedResponseBytes)
    }

    @Test func emptyInputAsksForMore() throws {
        var parser = HTTPResponseParser()
        let idle = try parser.next(UnsafeRawBufferPointer(start: nil, count: 0))
        #expect(idle.consumed == 0)
        guard case .needMoreData = idle.event else { Issue.record("expected needMoreData"); return }
        parser.expectResponse(to: .get)
        let waiting = try parser.next(UnsafeRawBufferPointer(start: nil, count: 0))
        guard case .needMoreData = waiting.event else { Issue.record("expected needMoreData"); return }
        #expect(!parser.hasReceivedResponseBytes)
    }

    @Test func bodySlicesPointIntoTheInput() throws {
        var parser = HTTPResponseParser()
        parser.expectResponse(to: .get)
        let bytes = Array("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc".utf8)
        try bytes.withUnsafeBytes { input in
            let (head, used) = try parser.next(input)
            guard case .head = head else { Issue.record("expected a head"); return }
            let rest = UnsafeRawBufferPointer(rebasing: input[used...])
            let (body, _) = try parser.next(rest)
            guard case .body(let slice) = body else { Issue.record("expected a body"); return }
            #expect(slice.baseAddress == rest.baseAddress, "no copy")
            #expect(slice.count == 3)
        }
    }

    @Test func parsedFieldsSupportLookups() throws {
        var parser = HTTPResponseParser()
        parser.expectResponse(to: .get)
        let bytes = Array("HTTP/1.1 301 Moved\r\nlocation: /next\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nContent-Length: 0\r\n\r\n".utf8)
        try bytes.withUnsafeBytes { input in
            guard case .head(let response) = try parser.next(input).event else {
                Issue.record("expected a head")
                return
            }
            #expect(response.status == .movedPermanently)
            #expect(response.headerFields[.location] == "/next")
            #expect(response.headerFields[values: .setCookie] == ["a=1", "b=2"])
            #expect(response.headerFields[.contentLength] == "0")
        }
    }
}
