import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// Bad input fails the one task concerned with a typed error and loses
/// nothing: after each, the next request on the same session succeeds.
@Suite("UVURLSession errors")
struct SessionErrorTests {
    /// Runs one request whose exchange `play` drives, checks its error, then
    /// checks a healthy request on the same session.
    func expectFailure(
        _ code: UVURLError.Code,
        detail: String? = nil,
        request: (UVURLSession) -> UVURLSession.DataTaskPublisher = { $0.dataTaskPublisher(for: exampleURL) },
        configuration: UVURLSession.Configuration = .init(),
        sourceLocation: SourceLocation = #_sourceLocation,
        _ play: (FakeTransport) -> Void
    ) {
        withFakeSession(configuration: configuration) { _, fake, session in
            let tracker = DataTaskTracker()
            request(session).subscribe(tracker)
            play(fake)
            let error = failure(of: tracker)
            #expect(error?.code == code, "\(tracker.history)", sourceLocation: sourceLocation)
            if let detail {
                #expect(error?.detail == detail, sourceLocation: sourceLocation)
            }
            #expect(tracker.values.isEmpty, sourceLocation: sourceLocation)
            #expect(session.engine.runningTaskCount == 0, sourceLocation: sourceLocation)
            let next = DataTaskTracker()
            session.dataTaskPublisher(for: URL(string: "http://next.example/")!).subscribe(next)
            let connection = fake.connections.last { $0.host == "next.example" && !$0.isClosed }
            if let connection {
                if connection.state == .connecting { connection.accept() }
                connection.respond(response(body: "fine"))
            }
            #expect(next.bodies == ["fine"], "the next request succeeds", sourceLocation: sourceLocation)
        }
    }

    @Test("an unsupported scheme fails before any I/O")
    func unsupportedScheme() {
        expectFailure(.unsupportedURL, detail: "scheme \"ftp\" is not http or https",
                      request: { $0.dataTaskPublisher(for: URL(string: "ftp://example.com/")!) }) { fake in
            #expect(fake.connections.isEmpty)
        }
    }

    @Test("https goes to the transport with its scheme; a TLS failure fails the task and the next request works")
    func httpsFailure() {
        let certificateError = UVURLError(.serverCertificateHasBadDate, detail: "certificate has expired",
                                          underlyingErrorName: "X509_V_ERR_CERT_HAS_EXPIRED")
        expectFailure(.serverCertificateHasBadDate, detail: "certificate has expired",
                      request: { $0.dataTaskPublisher(for: URL(string: "https://example.com/")!) }) { fake in
            // https offers h2 by default (Configuration.httpVersion, issue 33).
            #expect(fake.last.key == {
                var key = ConnectionKey(scheme: .https, host: "example.com", port: 443)
                key.httpVersion = .automatic
                return key
            }())
            fake.last.refuse(certificateError)
        }
    }

    @Test("a URL without a host is a bad URL")
    func noHost() {
        expectFailure(.badURL, request: { $0.dataTaskPublisher(for: URL(string: "http:///path")!) }) { fake in
            #expect(fake.connections.isEmpty)
        }
    }

    @Test("a request the writer refuses fails before anything is sent", arguments: [
        ("Transfer-Encoding", "chunked", "Transfer-Encoding in a request is not supported"),
        ("Content-Length", "7", "Content-Length field \"7\" does not match the body length 2"),
    ])
    func refusedRequest(name: String, value: String, detail: String) {
        expectFailure(.invalidRequest, detail: detail, request: { session in
            // (CR, LF and NUL cannot get this far: swift-http-types replaces
            // them in field values, and HTTPField.strict refuses them.)
            var request = HTTPRequest(method: .post, scheme: "http", authority: "example.com", path: "/")
            request.headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value))
            return session.dataTaskPublisher(for: request, body: Data("hi".utf8))
        }) { fake in
            #expect(fake.connections.isEmpty)
        }
    }

    @Test("refused connection")
    func refused() {
        expectFailure(.cannotConnectToHost) { fake in
            fake.last.refuse()
        }
    }

    @Test("unknown host")
    func unknownHost() {
        expectFailure(.cannotFindHost) { fake in
            fake.last.refuse(UVURLError(.cannotFindHost, underlyingErrorName: "UV_EAI_NONAME"))
        }
    }

    @Test("a malformed response")
    func malformed() {
        expectFailure(.badServerResponse, detail: "malformed status line") { fake in
            fake.last.accept()
            fake.last.respond("HTTP/1.1200 OK\r\n\r\n")
            #expect(fake.last.isClosed)
        }
    }

    @Test("an oversized head")
    func oversizedHead() {
        var configuration = UVURLSession.Configuration()
        configuration.maximumResponseHeaderBytes = 64
        expectFailure(.badServerResponse, configuration: configuration) { fake in
            fake.last.accept()
            fake.last.respond("HTTP/1.1 200 OK\r\nX-Long: \(String(repeating: "x", count: 100))\r\n\r\n")
        }
    }

    @Test("a body over the limit")
    func bodyTooLong() {
        var configuration = UVURLSession.Configuration()
        configuration.maximumResponseBodyLength = 4
        expectFailure(.dataLengthExceedsMaximum, configuration: configuration) { fake in
            fake.last.accept()
            fake.last.respond(response(body: "too long"))
        }
    }

    @Test("a truncated body")
    func truncated() {
        expectFailure(.networkConnectionLost) { fake in
            fake.last.accept()
            fake.last.respond("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab")
            fake.last.endOfStream()
        }
    }

    @Test("a reset mid-response")
    func resetMidResponse() {
        expectFailure(.networkConnectionLost) { fake in
            fake.last.accept()
            fake.last.respond("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab")
            fake.last.reset()
        }
    }

    @Test("end of stream before any response byte on a fresh connection is not retried")
    func closedBeforeResponse() {
        expectFailure(.networkConnectionLost, detail: "connection closed before the response began") { fake in
            fake.last.accept()
            fake.last.endOfStream()
            #expect(fake.connections.count == 1)
        }
    }
}
