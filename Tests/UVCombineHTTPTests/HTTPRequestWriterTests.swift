import Foundation
import HTTPTypes
import Testing
import UVCombineHTTP
import UVCombineHTTPCore

/// Writes `request` and returns the bytes as a string, or the error.
private func written(
    _ request: HTTPRequest,
    body: [UInt8]? = nil,
    closeConnection: Bool = false
) -> Result<String, UVURLError> {
    var buffer: [UInt8] = []
    do throws(UVURLError) {
        if let body {
            try HTTPRequestWriter.append(request, body: body, closeConnection: closeConnection, to: &buffer)
        } else {
            try HTTPRequestWriter.append(request, closeConnection: closeConnection, to: &buffer)
        }
        return .success(String(decoding: buffer, as: UTF8.self))
    } catch {
        #expect(buffer.isEmpty, "a refused request must not produce any byte")
        return .failure(error)
    }
}

private func request(
    _ method: HTTPRequest.Method = .get,
    authority: String? = "example.com",
    path: String? = "/",
    fields: [(String, String)] = []
) -> HTTPRequest {
    var headerFields = HTTPFields()
    for (name, value) in fields {
        headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value))
    }
    return HTTPRequest(method: method, scheme: "http", authority: authority, path: path, headerFields: headerFields)
}

@Suite("HTTPRequestWriter")
struct HTTPRequestWriterTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var request: HTTPRequest
        var body: [UInt8]?
        var close = false
        var expected: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "GET", request: request(), expected: "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"),
        Case(
            name: "fields in order",
            request: request(path: "/a/b?c=d&e", fields: [("Accept", "*/*"), ("X-Trace", "1"), ("accept", "text/plain")]),
            expected: "GET /a/b?c=d&e HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\nX-Trace: 1\r\naccept: text/plain\r\n\r\n"
        ),
        Case(
            name: "POST with body",
            request: request(.post, path: "/p"),
            body: Array("hello".utf8),
            expected: "POST /p HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5\r\n\r\nhello"
        ),
        Case(
            name: "POST with an empty body says Content-Length: 0",
            request: request(.post),
            expected: "POST / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 0\r\n\r\n"
        ),
        Case(
            name: "PUT with an empty body says Content-Length: 0",
            request: request(.put),
            body: [],
            expected: "PUT / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 0\r\n\r\n"
        ),
        Case(
            name: "GET with an empty body has no Content-Length",
            request: request(.get),
            body: [],
            expected: "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"
        ),
        Case(
            name: "DELETE with a body",
            request: request(.delete),
            body: Array("0123456789".utf8),
            expected: "DELETE / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 10\r\n\r\n0123456789"
        ),
        Case(
            name: "matching Content-Length field is written once",
            request: request(.post, fields: [("Content-Length", "3"), ("Content-Type", "text/plain")]),
            body: Array("abc".utf8),
            expected: "POST / HTTP/1.1\r\nHost: example.com\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\nabc"
        ),
        Case(
            name: "Connection: close when asked",
            request: request(),
            close: true,
            expected: "GET / HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n"
        ),
        Case(
            name: "the request's own Connection: close is not doubled",
            request: request(fields: [("Connection", "close")]),
            close: true,
            expected: "GET / HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n"
        ),
        Case(
            name: "IPv6 authority with port",
            request: request(authority: "[::1]:8080"),
            expected: "GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n"
        ),
        Case(
            name: "no authority but a Host field",
            request: request(authority: nil, fields: [("Host", "h.example")]),
            expected: "GET / HTTP/1.1\r\nHost: h.example\r\n\r\n"
        ),
        Case(
            name: "OPTIONS *",
            request: request(.options, path: "*"),
            expected: "OPTIONS * HTTP/1.1\r\nHost: example.com\r\n\r\n"
        ),
        Case(
            name: "custom token method",
            request: request(HTTPRequest.Method("PROPFIND")!),
            expected: "PROPFIND / HTTP/1.1\r\nHost: example.com\r\n\r\n"
        ),
        Case(
            name: "obs-text in a value is passed through",
            request: request(fields: [("X-Name", "caf\u{e9}")]),
            expected: "GET / HTTP/1.1\r\nHost: example.com\r\nX-Name: caf\u{e9}\r\n\r\n"
        ),
    ]

    @Test(arguments: cases)
    func writes(_ c: Case) {
        #expect(written(c.request, body: c.body, closeConnection: c.close) == .success(c.expected))
    }

    struct Refusal: CustomTestStringConvertible, Sendable {
        var name: String
        var request: HTTPRequest
        var body: [UInt8]? = nil
        var code: UVURLError.Code
        var detail: String
        var testDescription: String { name }
    }

    /// Refusals reachable through swift-http-types' public API. It turns CR,
    /// LF and NUL in pseudo fields into spaces, so a CRLF path arrives as
    /// spaces and is refused for those.
    static let refusals: [Refusal] = [
        Refusal(name: "no path", request: request(path: nil), code: .badURL, detail: "empty request target"),
        Refusal(name: "empty path", request: request(path: ""), code: .badURL, detail: "empty request target"),
        Refusal(name: "space in path", request: request(path: "/a b"), code: .badURL, detail: "space in request target"),
        Refusal(
            name: "CRLF in path (legalised to spaces by HTTPTypes)",
            request: request(path: "/a\r\nX-Injected: 1"),
            code: .badURL,
            detail: "space in request target"
        ),
        Refusal(name: "HTAB in path", request: request(path: "/a\tb"), code: .badURL, detail: "HTAB in request target"),
        Refusal(
            name: "non-ASCII in path",
            request: request(path: "/caf\u{e9}"),
            code: .badURL,
            detail: "non-ASCII byte 0xC3 in request target"
        ),
        Refusal(name: "fragment", request: request(path: "/a#b"), code: .badURL, detail: "fragment in request target"),
        Refusal(
            name: "absolute-form",
            request: request(path: "http://example.com/"),
            code: .badURL,
            detail: "request target does not start with \"/\""
        ),
        Refusal(
            name: "asterisk for GET",
            request: request(path: "*"),
            code: .badURL,
            detail: "asterisk request target is only valid for OPTIONS"
        ),
        Refusal(
            name: "CRLF in authority (legalised to spaces)",
            request: request(authority: "example.com\r\nX-Injected: 1"),
            code: .badURL,
            detail: "space in host"
        ),
        Refusal(name: "user info in authority", request: request(authority: "u@h"), code: .badURL, detail: "\"@\" in host"),
        Refusal(name: "slash in authority", request: request(authority: "h/x"), code: .badURL, detail: "\"/\" in host"),
        Refusal(name: "empty authority", request: request(authority: ""), code: .badURL, detail: "empty host"),
        Refusal(
            name: "no authority and no Host",
            request: request(authority: nil),
            code: .badURL,
            detail: "no host: the request has no authority and no Host header field"
        ),
        Refusal(
            name: "authority and Host",
            request: request(fields: [("Host", "other")]),
            code: .invalidRequest,
            detail: "both a request authority and a Host header field"
        ),
        Refusal(
            name: "two Host fields",
            request: request(authority: nil, fields: [("Host", "a"), ("host", "b")]),
            code: .invalidRequest,
            detail: "more than one Host header field"
        ),
        Refusal(name: "CONNECT", request: request(.connect), code: .invalidRequest, detail: "CONNECT requests are not supported"),
        Refusal(
            name: "Content-Length disagreeing with the body",
            request: request(.post, fields: [("Content-Length", "4")]),
            body: Array("abc".utf8),
            code: .invalidRequest,
            detail: "Content-Length field \"4\" does not match the body length 3"
        ),
        Refusal(
            name: "malformed Content-Length field",
            request: request(.post, fields: [("Content-Length", "3x")]),
            body: Array("abc".utf8),
            code: .invalidRequest,
            detail: "Content-Length field \"3x\" does not match the body length 3"
        ),
        Refusal(
            name: "Transfer-Encoding field",
            request: request(.post, fields: [("Transfer-Encoding", "chunked")]),
            code: .invalidRequest,
            detail: "Transfer-Encoding in a request is not supported"
        ),
    ]

    /// Refusals of values that `HTTPField(name:lenientValue:)` keeps as
    /// given (it replaces only CR, LF and NUL).
    static let lenientRefusals: [Refusal] = [
        // Found by the RequestWriterFuzzer: written as is, the server strips it.
        Refusal(
            name: "trailing whitespace in a lenient field value",
            request: lenientRequest(field: "X-A", value: "a  "),
            code: .invalidRequest,
            detail: "leading or trailing whitespace in value of header field \"X-A\""
        ),
        Refusal(
            name: "leading HTAB in a lenient field value",
            request: lenientRequest(field: "X-A", value: "\ta"),
            code: .invalidRequest,
            detail: "leading or trailing whitespace in value of header field \"X-A\""
        ),
        Refusal(
            name: "control byte in a lenient field value",
            request: lenientRequest(field: "X-A", value: "a\u{01}b"),
            code: .invalidRequest,
            detail: "control byte 0x01 in value of header field \"X-A\""
        ),
        Refusal(
            name: "DEL in a lenient field value",
            request: lenientRequest(field: "X-A", value: "a\u{7F}"),
            code: .invalidRequest,
            detail: "DEL in value of header field \"X-A\""
        ),
    ]

    private static func lenientRequest(field: String, value: String) -> HTTPRequest {
        var headerFields = HTTPFields()
        headerFields.append(HTTPField(name: HTTPField.Name(field)!, lenientValue: Array(value.utf8)))
        return HTTPRequest(method: .get, scheme: "http", authority: "example.com", path: "/", headerFields: headerFields)
    }

    @Test(arguments: lenientRefusals)
    func refusesLenientValues(_ r: Refusal) {
        refuses(r)
    }

    @Test(arguments: refusals)
    func refuses(_ r: Refusal) {
        guard case .failure(let error) = written(r.request, body: r.body) else {
            Issue.record("expected \(r.code), the request was written")
            return
        }
        #expect(error.code == r.code)
        #expect(error.detail == r.detail)
    }

    @Test func swiftHTTPTypesLegalisesFieldValuesSoInjectionCannotReachTheWire() {
        // What swift-http-types does with CR, LF and NUL: spaces, never
        // line breaks. Our writer therefore never sees them in a value;
        // HTTPField.strict refuses them instead (see HTTPRequestValidationTests).
        let field = HTTPField(name: HTTPField.Name("X-A")!, value: "a\r\nX-Injected: 1\0")
        #expect(field.value == "a  X-Injected: 1")
        #expect(HTTPField.Name("X-A\r\n") == nil)
        #expect(HTTPRequest.Method("GE T") == nil)
        #expect(HTTPRequest.Method("GET\r\n") == nil)
        let output = written(request(fields: [("X-A", "a\r\nX-Injected: 1")]))
        #expect(output == .success("GET / HTTP/1.1\r\nHost: example.com\r\nX-A: a  X-Injected: 1\r\n\r\n"))
    }

    @Test func resultReportsCloseAndByteCount() throws {
        var buffer: [UInt8] = Array("prefix".utf8)
        let result = try HTTPRequestWriter.append(request(.post), body: Array("xy".utf8), closeConnection: true, to: &buffer)
        #expect(result.closesConnection)
        #expect(result.byteCount == buffer.count - 6)
        #expect(String(decoding: buffer.prefix(6), as: UTF8.self) == "prefix")

        let keep = try HTTPRequestWriter.append(request(fields: [("Connection", "keep-alive, Close")]), to: &buffer)
        #expect(keep.closesConnection, "a caller's Connection: close counts")
        let open = try HTTPRequestWriter.append(request(), to: &buffer)
        #expect(!open.closesConnection)
    }

    @Test func appendHeadAnnouncesABodySentSeparately() throws {
        var buffer: [UInt8] = []
        try HTTPRequestWriter.appendHead(of: request(.put), bodyLength: 1_000_000, to: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self)
            == "PUT / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 1000000\r\n\r\n")
    }

    @Test func contentLengthDigits() throws {
        for length in [1, 9, 10, 99, 100, 101, 4096, 65_535, 1_234_567] {
            var buffer: [UInt8] = []
            try HTTPRequestWriter.appendHead(of: request(.post), bodyLength: length, to: &buffer)
            #expect(String(decoding: buffer, as: UTF8.self).contains("Content-Length: \(length)\r\n"))
        }
    }

    @Test func requestsFromURLTargets() throws {
        let target = try HTTPRequestTarget(string: "http://Example.COM:8080/p?q=1#frag")
        var buffer: [UInt8] = []
        try HTTPRequestWriter.append(target.makeRequest(), to: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "GET /p?q=1 HTTP/1.1\r\nHost: example.com:8080\r\n\r\n")
    }
}
