import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// The error a tracker failed with, if it failed.
func failure<Input>(of tracker: TrackingSubscriber<Input, UVURLError>) -> UVURLError? {
    if case .failure(let error) = tracker.completion { return error }
    return nil
}

/// Redirects, driven through the fake transport.
@Suite("UVURLSession redirects")
struct SessionRedirectTests {
    @Test("a relative 302 is followed on the same connection; the redirect's body is dropped")
    func followsRelativeRedirect() {
        withFakeSession { _, fake, session in
            let tracker = DataTaskTracker()
            session.dataTaskPublisher(for: URL(string: "http://example.com/old")!).subscribe(tracker)
            fake.last.accept()
            fake.last.respond(response("302 Found", body: "moved", fields: ["Location: /new"]))
            #expect(tracker.values.isEmpty)
            #expect(fake.last.requestLines == ["GET /old HTTP/1.1", "GET /new HTTP/1.1"])
            fake.last.respond(response(body: "here"))
            #expect(tracker.bodies == ["here"])
            #expect(tracker.completion == .finished)
            #expect(fake.connections.count == 1)
        }
    }

    @Test("a redirect to another host uses a connection of that host")
    func crossHostRedirect() {
        withFakeSession { _, fake, session in
            let tracker = DataTaskTracker()
            var request = HTTPRequest(method: .get, scheme: "http", authority: "example.com", path: "/")
            request.headerFields[.authorization] = "secret"
            session.dataTaskPublisher(for: request).subscribe(tracker)
            fake.last.accept()
            fake.last.respond(response("301 Moved Permanently", fields: ["Location: http://other.example:8080/x"]))
            #expect(fake.connections.count == 2)
            #expect(fake.last.host == "other.example" && fake.last.port == 8080)
            fake.last.accept()
            #expect(fake.last.writtenText == "GET /x HTTP/1.1\r\nHost: other.example:8080\r\nAccept-Encoding: gzip, deflate\r\n\r\n",
                    "credentials are not forwarded to another origin")
            fake.last.respond(response(body: "there"))
            #expect(tracker.bodies == ["there"])
            #expect(!fake.connections[0].isClosed, "the first connection idles in the pool")
        }
    }

    @Test("303 after POST: GET without the body")
    func seeOther() {
        withFakeSession { _, fake, session in
            let tracker = DataTaskTracker()
            var request = HTTPRequest(method: .post, scheme: "http", authority: "example.com", path: "/form")
            request.headerFields[.contentType] = "text/plain"
            session.dataTaskPublisher(for: request, body: Data("data".utf8)).subscribe(tracker)
            fake.last.accept()
            fake.last.respond(response("303 See Other", fields: ["Location: /result"]))
            #expect(fake.last.writtenText.hasSuffix("\r\n\r\ndataGET /result HTTP/1.1\r\nHost: example.com\r\nAccept-Encoding: gzip, deflate\r\n\r\n"))
            fake.last.respond(response(body: "done"))
            #expect(tracker.bodies == ["done"])
        }
    }

    @Test("too many redirects fail with httpTooManyRedirects")
    func tooManyRedirects() {
        var configuration = UVURLSession.Configuration()
        configuration.redirectPolicy.maximumRedirects = 2
        withFakeSession(configuration: configuration) { _, fake, session in
            let tracker = DataTaskTracker()
            session.dataTaskPublisher(for: URL(string: "http://example.com/0")!).subscribe(tracker)
            fake.last.accept()
            for index in 1...3 {
                fake.last.respond(response("302 Found", fields: ["Location: /\(index)"]))
            }
            #expect(failure(of: tracker)?.code == .httpTooManyRedirects)
            #expect(failure(of: tracker)?.detail == "more than 2 redirects")
            #expect(fake.last.isClosed, "a failed exchange closes its connection")
        }
    }

    @Test("a redirect cycle fails")
    func redirectCycle() {
        withFakeSession { _, fake, session in
            let tracker = DataTaskTracker()
            session.dataTaskPublisher(for: URL(string: "http://example.com/a")!).subscribe(tracker)
            fake.last.accept()
            fake.last.respond(response("302 Found", fields: ["Location: /b"]))
            fake.last.respond(response("302 Found", fields: ["Location: /a"]))
            #expect(failure(of: tracker)?.detail == "redirect cycle")
        }
    }

    @Test("a redirect from http to https is followed on an https connection")
    func redirectToHTTPS() {
        withFakeSession { _, fake, session in
            let tracker = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(tracker)
            fake.last.accept()
            fake.last.respond(response("301 Moved Permanently", fields: ["Location: https://example.com/a"]))
            #expect(fake.connections.count == 2)
            #expect(!fake.connections[0].isClosed, "the redirect response completed; its connection is pooled")
            // https offers h2 by default (Configuration.httpVersion, issue 33).
            #expect(fake.last.key == {
                var key = ConnectionKey(scheme: .https, host: "example.com", port: 443)
                key.httpVersion = .automatic
                return key
            }())
            fake.last.accept()
            #expect(fake.last.requestLines == ["GET /a HTTP/1.1"])
            fake.last.respond(response(body: "secure"))
            #expect(tracker.bodies == ["secure"])
            #expect(tracker.completion == .finished)
        }
    }

    @Test("a redirect from https to http fails with insecureRedirect unless the policy allows it")
    func redirectFromHTTPS() {
        withFakeSession { _, fake, session in
            let tracker = DataTaskTracker()
            session.dataTaskPublisher(for: URL(string: "https://example.com/a")!).subscribe(tracker)
            fake.last.accept()
            fake.last.respond(response("302 Found", fields: ["Location: http://example.com/b"]))
            #expect(failure(of: tracker)?.code == .insecureRedirect)
            #expect(fake.connections.count == 1, "no plain connection was opened")
        }
        var configuration = UVURLSession.Configuration()
        configuration.redirectPolicy.allowsHTTPSToHTTP = true
        withFakeSession(configuration: configuration) { _, fake, session in
            let tracker = DataTaskTracker()
            session.dataTaskPublisher(for: URL(string: "https://example.com/a")!).subscribe(tracker)
            fake.last.accept()
            fake.last.respond(response("302 Found", fields: ["Location: http://example.com/b"]))
            #expect(fake.last.key == ConnectionKey(scheme: .http, host: "example.com", port: 80))
            fake.last.accept()
            fake.last.respond(response(body: "plain"))
            #expect(tracker.bodies == ["plain"])
        }
    }

    @Test("with redirects off, a 3xx is a value")
    func redirectsOff() {
        var configuration = UVURLSession.Configuration()
        configuration.redirectPolicy = .none
        withFakeSession(configuration: configuration) { _, fake, session in
            let tracker = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(tracker)
            fake.last.accept()
            fake.last.respond(response("302 Found", fields: ["Location: /b"]))
            #expect(tracker.statusCodes == [302])
        }
    }
}

/// Timeouts, on the fake transport's virtual time.
@Suite("UVURLSession timeouts")
struct SessionTimeoutTests {
    @Test("connect timeout: timedOut(.connect); the next request works")
    func connectTimeout() {
        var configuration = UVURLSession.Configuration()
        configuration.connectTimeout = .seconds(2)
        withFakeSession(configuration: configuration) { _, fake, session in
            let tracker = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(tracker)
            #expect(fake.armedDeadline == fake.now.advanced(by: .seconds(2)))
            fake.advance(by: .milliseconds(1999))
            #expect(tracker.completion == nil)
            fake.advance(by: .milliseconds(1))
            #expect(failure(of: tracker)?.timeoutKind == .connect)
            #expect(failure(of: tracker)?.code == .timedOut)
            #expect(fake.last.isClosed)
            let next = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(next)
            fake.last.accept()
            fake.last.respond(response(body: "ok"))
            #expect(next.bodies == ["ok"])
        }
    }

    @Test("idle read timeout: no byte for too long after the request; activity moves the deadline")
    func idleReadTimeout() {
        var configuration = UVURLSession.Configuration()
        configuration.idleReadTimeout = .seconds(5)
        withFakeSession(configuration: configuration) { _, fake, session in
            let tracker = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(tracker)
            fake.last.accept()
            fake.advance(by: .seconds(4))
            fake.last.respond("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
            fake.advance(by: .seconds(4))
            #expect(tracker.completion == nil, "bytes 4 s ago moved the deadline")
            fake.advance(by: .seconds(1))
            #expect(failure(of: tracker)?.timeoutKind == .idleRead)
            #expect(fake.last.isClosed)
            #expect(session.engine.runningTaskCount == 0)
            let next = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(next)
            fake.last.accept()
            fake.last.respond(response(body: "ok"))
            #expect(next.bodies == ["ok"])
        }
    }

    @Test("total timeout: across redirects, also while queued")
    func totalTimeout() {
        var configuration = UVURLSession.Configuration()
        configuration.totalTimeout = .seconds(10)
        configuration.idleReadTimeout = nil
        configuration.maximumConnectionsPerHost = 1
        withFakeSession(configuration: configuration) { _, fake, session in
            let redirected = DataTaskTracker()
            session.dataTaskPublisher(for: URL(string: "http://example.com/a")!).subscribe(redirected)
            fake.last.accept()
            fake.advance(by: .seconds(6))
            fake.last.respond(response("302 Found", fields: ["Location: /b"]))
            let queued = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(queued)
            fake.advance(by: .seconds(4))
            #expect(failure(of: redirected)?.timeoutKind == .total)
            #expect(queued.completion == nil, "the queued task started 4 s ago")
            #expect(fake.connections.count == 2, "the timed-out exchange closed its connection; the queue gets a new one")
            fake.advance(by: .seconds(6))
            #expect(failure(of: queued)?.timeoutKind == .total)
        }
    }

    @Test("a finished task leaves no deadline behind; a lazily armed timer finds nothing")
    func finishedTaskLeavesNoDeadline() {
        withFakeSession { _, fake, session in
            let tracker = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(tracker)
            fake.last.accept()
            fake.last.respond(response())
            #expect(session.engine.deadlineCount == 1, "only the idle connection's deadline")
            fake.advance(by: .seconds(60))
            #expect(fake.last.isClosed)
            #expect(session.engine.deadlineCount == 0)
            fake.advance(by: .seconds(7 * 24 * 3600))
            #expect(tracker.completion == .finished)
        }
    }
}
