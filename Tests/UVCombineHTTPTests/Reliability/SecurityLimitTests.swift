import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// One configurable limit, probed at the limit (the response is accepted)
/// and one past it (the task fails with the exact error), against
/// `TestHTTPServer` on real sockets.
struct LimitCase: Sendable, CustomTestStringConvertible {
    let name: String
    /// Sets the limit.
    let configure: @Sendable (inout UVURLSession.Configuration) -> Void
    /// The response exactly at the limit (`excess` 0) or `excess` past it.
    let response: @Sendable (_ excess: Int) -> TestHTTPServer.Response
    let code: UVURLError.Code
    let detail: String

    var testDescription: String { name }
}

/// `count` `a`s.
private func filler(_ count: Int) -> String { String(repeating: "a", count: count) }

let limitCases: [LimitCase] = [
    // Head = "HTTP/1.1 200 OK\r\n" (17) + "X-Pad: <pad>\r\n" (9 + pad)
    //      + "Content-Length: 2\r\n" (19) + "\r\n" (2) = 47 + pad bytes.
    LimitCase(name: "header bytes (1,024)", configure: { $0.maximumResponseHeaderBytes = 1024 },
              response: { excess in
                  TestHTTPServer.Response(headerFields: [HTTPField.Name("X-Pad")!: filler(1024 - 47 + excess),
                                                         .contentLength: "2"], body: Array("ok".utf8))
              },
              code: .badServerResponse, detail: "header section exceeds 1024 bytes"),
    LimitCase(name: "header count (10)", configure: { $0.maximumResponseHeaderCount = 10 },
              response: { excess in
                  var fields: HTTPFields = [.contentLength: "2"]
                  for index in 0..<(9 + excess) { fields.append(HTTPField(name: HTTPField.Name("X-F\(index)")!, value: "v")) }
                  return TestHTTPServer.Response(headerFields: fields, body: Array("ok".utf8))
              },
              code: .badServerResponse, detail: "more than 10 header fields"),
    // Status line = "HTTP/1.1 200 " (13) + the reason phrase.
    LimitCase(name: "status line length (100)", configure: { $0.maximumResponseStatusLineLength = 100 },
              response: { excess in
                  TestHTTPServer.Response(status: HTTPResponse.Status(code: 200, reasonPhrase: filler(87 + excess)),
                                          body: Array("ok".utf8))
              },
              code: .badServerResponse, detail: "status line exceeds 100 bytes"),
    LimitCase(name: "body size, Content-Length (1,000)", configure: { $0.maximumResponseBodyLength = 1000 },
              response: { excess in TestHTTPServer.Response(body: Array(filler(1000 + excess).utf8)) },
              code: .dataLengthExceedsMaximum, detail: "Content-Length 1001 exceeds the maximum of 1000 bytes"),
    LimitCase(name: "body size, chunked (1,000)", configure: { $0.maximumResponseBodyLength = 1000 },
              response: { excess in
                  TestHTTPServer.Response(body: Array(filler(1000 + excess).utf8), fault: .chunked(chunkSize: 100))
              },
              code: .dataLengthExceedsMaximum, detail: "body exceeds the maximum of 1000 bytes"),
]

/// Security limits (issue 10): each configurable, each with a safe
/// default, each tested at the limit and one past it; and request bytes
/// that could smuggle a second request refused before anything is sent.
extension Reliability {
@Suite("Reliability: security limits")
struct SecurityLimitTests {
    @Test("a limit: accepted at it, refused one past it with the exact error", arguments: limitCases)
    func limit(_ limit: LimitCase) throws {
        let server = try TestHTTPServer(routes: ["/at": limit.response(0), "/past": limit.response(1)])
        defer { server.shutdown() }
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration()
            limit.configure(&configuration)
            let session = UVURLSession(loop: loop, configuration: configuration)
            let at = fetch(session.dataTaskPublisher(for: server.url("/at")), on: loop)
            #expect(at?.status == 200, "at the limit: \(String(describing: at?.error))")
            let past = fetch(session.dataTaskPublisher(for: server.url("/past")), on: loop)?.error
            #expect(past?.code == limit.code, "past the limit: \(String(describing: past))")
            #expect(past?.detail == limit.detail)
            #expect(session.engine.connectionCount == 0, "the connection of a refused response is closed")
        }
    }

    @Test("the defaults are safe")
    func safeDefaults() {
        let configuration = UVURLSession.Configuration()
        #expect(configuration.maximumResponseHeaderBytes == 64 * 1024)
        #expect(configuration.maximumResponseHeaderCount == 100)
        #expect(configuration.maximumResponseStatusLineLength == 8 * 1024)
        #expect(configuration.redirectPolicy.maximumRedirects == 5)
        #expect(configuration.redirectPolicy.allowsHTTPSToHTTP == false)
        // No body limit by default (URLSession has none either); a hostile
        // Content-Length reserves at most 8 MiB up front.
        #expect(configuration.maximumResponseBodyLength == nil)
    }

    @Test("redirect count: exactly the maximum is followed, one more fails", arguments: [0, 1])
    func redirectCount(excess: Int) throws {
        // /hop/n redirects to /hop/n-1; /hop/0 answers.
        let server = try TestHTTPServer { request in
            let number = Int(request.path.split(separator: "/").last ?? "") ?? 0
            if number == 0 { return .text("arrived") }
            return TestHTTPServer.Response(status: .found, headerFields: [.location: "/hop/\(number - 1)"])
        }
        defer { server.shutdown() }
        withRealLoop { loop in
            var configuration = UVURLSession.Configuration()
            configuration.redirectPolicy.maximumRedirects = 3
            let session = UVURLSession(loop: loop, configuration: configuration)
            let outcome = fetch(session.dataTaskPublisher(for: server.url("/hop/\(3 + excess)")), on: loop)
            if excess == 0 {
                #expect(outcome?.text == "arrived", "\(String(describing: outcome?.error))")
                #expect(server.requestCount == 4)
            } else {
                #expect(outcome?.error?.code == .httpTooManyRedirects)
                #expect(outcome?.error?.detail == "more than 3 redirects")
                #expect(server.requestCount == 4, "the fourth redirect is not followed")
            }
        }
    }

    @Test("redirect scheme: only http and https are followed", arguments: [
        ("file:///etc/passwd", UVURLError.Code.unsupportedURL, "scheme \"file\" is not http or https"),
        ("ftp://127.0.0.1/x", UVURLError.Code.unsupportedURL, "scheme \"ftp\" is not http or https"),
        ("javascript:alert(1)", UVURLError.Code.unsupportedURL, "scheme \"javascript\" is not http or https"),
    ])
    func redirectScheme(location: String, code: UVURLError.Code, detail: String) throws {
        let server = try TestHTTPServer(routes: [
            "/go": TestHTTPServer.Response(status: .found, headerFields: [.location: location]),
        ])
        defer { server.shutdown() }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            let error = fetch(session.dataTaskPublisher(for: server.url("/go")), on: loop)?.error
            #expect(error?.code == code, "\(String(describing: error))")
            #expect(error?.detail == detail)
            #expect(server.requestCount == 1)
        }
    }

    @Test("CR, LF and NUL in the path, query or authority never reach the wire: no smuggled request", arguments: [
        "path CRLF", "path LF", "path NUL", "query CRLF", "authority CRLF", "authority NUL",
    ])
    func injectionNeutralised(component: String) throws {
        let server = try TestHTTPServer(routes: ["/ok": .text("ok")])
        defer { server.shutdown() }
        let authority = "127.0.0.1:\(server.port)"
        let smuggled = "x HTTP/1.1\r\nHost: evil\r\n\r\nGET /smuggled"
        let request: HTTPRequest
        switch component {
        case "path CRLF": request = HTTPRequest(method: .get, scheme: "http", authority: authority, path: "/ok\(smuggled)")
        case "path LF": request = HTTPRequest(method: .get, scheme: "http", authority: authority, path: "/ok\nX: y")
        case "path NUL": request = HTTPRequest(method: .get, scheme: "http", authority: authority, path: "/ok\u{0}")
        case "query CRLF": request = HTTPRequest(method: .get, scheme: "http", authority: authority, path: "/ok?a=1\r\nX: y")
        case "authority CRLF": request = HTTPRequest(method: .get, scheme: "http", authority: authority + "\r\nX: y", path: "/ok")
        default: request = HTTPRequest(method: .get, scheme: "http", authority: authority + "\u{0}", path: "/ok")
        }
        // swift-http-types legalises every pseudo-header component (CR, LF
        // and NUL become spaces, the ends are trimmed): the bytes never
        // reach the session. What is left is either refused (a space in an
        // authority: .badURL before any connection) or percent-encoded
        // into the request target by the URL parser.
        for value in [request.scheme, request.authority, request.path].compactMap({ $0 }) {
            #expect(!value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 })
        }
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            let outcome = fetch(session.dataTaskPublisher(for: request), on: loop)
            if let error = outcome?.error {
                #expect(error.code == .badURL, "\(error)")
                #expect(server.requestCount == 0, "refused before anything was sent")
                #expect(server.connectionCount == 0)
            } else {
                #expect(server.requestCount == 1, "one request, nothing smuggled after it")
            }
            #expect(fetch(session.dataTaskPublisher(for: server.url("/ok")), on: loop)?.text == "ok")
        }
        for seen in server.requests {
            #expect(seen.path != "/smuggled")
            #expect(seen.headerFields[HTTPField.Name("X")!] == nil)
            #expect(!seen.target.utf8.contains { $0 <= 0x20 }, "\(seen.target)")
            #expect(seen.headerFields[HTTPField.Name("Host")!] == authority)
        }
    }

    @Test("CR, LF and NUL in a header field value never reach the wire as line breaks")
    func fieldValueInjectionNeutralised() throws {
        // swift-http-types legalises a field value built from a String
        // (CR, LF, NUL become spaces), so no API path carries them to the
        // writer; the writer would refuse them (HTTPRequestValidationTests).
        let server = try TestHTTPServer(routes: ["/ok": .text("ok")])
        defer { server.shutdown() }
        var request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(server.port)", path: "/ok")
        request.headerFields[HTTPField.Name("X-Test")!] = "a\r\nX-Injected: 1\u{0}"
        withRealLoop { loop in
            let session = UVURLSession(loop: loop)
            #expect(fetch(session.dataTaskPublisher(for: request), on: loop)?.text == "ok")
        }
        let seen = try #require(server.requests.first)
        #expect(seen.headerFields[HTTPField.Name("X-Injected")!] == nil)
        #expect(seen.headerFields[HTTPField.Name("X-Test")!]?.contains("\r") == false)
        #expect(server.requestCount == 1)
    }
}
}
