import Foundation
import HTTPTypes
import Testing
import UVCombineCore
import UVCombineHTTP
import UVCombineHTTPCore
import UVCombineLoop
import UVCombineTesting

/// The session's connection pool, driven through the fake transport.
@Suite("UVURLSession pool")
struct SessionPoolTests {
    @Test("keep-alive: sequential requests share one connection, which idles unref'd between them")
    func keepAliveReuse() {
        withFakeSession { _, fake, session in
            for index in 0..<3 {
                let tracker = DataTaskTracker()
                session.dataTaskPublisher(for: URL(string: "http://example.com/\(index)")!).subscribe(tracker)
                if index == 0 { fake.last.accept() }
                #expect(fake.last.keepsLoopAlive, "a busy connection keeps the loop alive")
                fake.last.respond(response(body: "\(index)"))
                #expect(tracker.bodies == ["\(index)"])
                #expect(!fake.last.keepsLoopAlive, "an idle connection does not keep the loop alive")
                #expect(fake.last.isReading, "an idle connection reads, to notice the server closing it")
            }
            #expect(fake.connections.count == 1)
            #expect(fake.requestLines == ["GET /0 HTTP/1.1", "GET /1 HTTP/1.1", "GET /2 HTTP/1.1"])
        }
    }

    @Test("per-host limit: requests beyond it wait, in order, for a connection")
    func perHostLimitQueues() {
        var configuration = UVURLSession.Configuration()
        configuration.maximumConnectionsPerHost = 2
        withFakeSession(configuration: configuration) { _, fake, session in
            let trackers = (0..<4).map { _ in DataTaskTracker() }
            for (index, tracker) in trackers.enumerated() {
                session.dataTaskPublisher(for: URL(string: "http://example.com/\(index)")!).subscribe(tracker)
            }
            #expect(fake.connections.count == 2)
            fake.connections[0].accept()
            fake.connections[1].accept()
            #expect(fake.connections[0].requestLines == ["GET /0 HTTP/1.1"])
            #expect(fake.connections[1].requestLines == ["GET /1 HTTP/1.1"])
            fake.connections[1].respond(response(body: "b"))
            #expect(fake.connections[1].requestLines == ["GET /1 HTTP/1.1", "GET /2 HTTP/1.1"])
            fake.connections[0].respond(response(body: "a"))
            #expect(fake.connections[0].requestLines == ["GET /0 HTTP/1.1", "GET /3 HTTP/1.1"])
            fake.connections[0].respond(response(body: "d"))
            fake.connections[1].respond(response(body: "c"))
            #expect(trackers.map(\.bodies) == [["a"], ["b"], ["c"], ["d"]])
            // Another host has its own limit.
            let other = DataTaskTracker()
            session.dataTaskPublisher(for: URL(string: "http://other.example/")!).subscribe(other)
            #expect(fake.connections.count == 3)
            #expect(fake.last.host == "other.example")
            fake.last.accept()
            fake.last.respond(response())
            #expect(other.completion == .finished)
        }
    }

    @Test("a cancelled queued request leaves the queue; the next one gets the connection")
    func cancelQueued() {
        var configuration = UVURLSession.Configuration()
        configuration.maximumConnectionsPerHost = 1
        withFakeSession(configuration: configuration) { _, fake, session in
            let first = DataTaskTracker(), second = DataTaskTracker(), third = DataTaskTracker()
            session.dataTaskPublisher(for: URL(string: "http://example.com/1")!).subscribe(first)
            session.dataTaskPublisher(for: URL(string: "http://example.com/2")!).subscribe(second)
            session.dataTaskPublisher(for: URL(string: "http://example.com/3")!).subscribe(third)
            fake.last.accept()
            second.cancel()
            fake.last.respond(response(body: "1"))
            #expect(fake.last.requestLines == ["GET /1 HTTP/1.1", "GET /3 HTTP/1.1"])
            fake.last.respond(response(body: "3"))
            #expect(first.bodies == ["1"] && third.bodies == ["3"])
            #expect(second.history == ["subscription(DataTaskPublisher)"])
        }
    }

    @Test("an idle connection closes at the idle timeout")
    func idleTimeout() {
        var configuration = UVURLSession.Configuration()
        configuration.connectionIdleTimeout = .seconds(5)
        withFakeSession(configuration: configuration) { _, fake, session in
            let tracker = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(tracker)
            fake.last.accept()
            fake.last.respond(response())
            #expect(!fake.last.isClosed)
            fake.advance(by: .seconds(4))
            #expect(!fake.last.isClosed)
            fake.advance(by: .seconds(1))
            #expect(fake.last.isClosed)
            #expect(session.engine.connectionCount == 0)
            // A later request connects afresh.
            let later = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(later)
            #expect(fake.connections.count == 2)
            fake.last.accept()
            fake.last.respond(response(body: "again"))
            #expect(later.bodies == ["again"])
        }
    }

    @Test("a reused connection's idle deadline restarts when it idles again")
    func idleDeadlineRestarts() {
        var configuration = UVURLSession.Configuration()
        configuration.connectionIdleTimeout = .seconds(5)
        withFakeSession(configuration: configuration) { _, fake, session in
            let first = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(first)
            fake.last.accept()
            fake.last.respond(response())
            fake.advance(by: .seconds(4))
            let second = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(second)
            fake.last.respond(response())
            fake.advance(by: .seconds(4))
            #expect(!fake.last.isClosed, "8 s after the first exchange, 4 s after the second")
            fake.advance(by: .seconds(1))
            #expect(fake.last.isClosed)
        }
    }

    @Test("Connection: close in the response closes the connection after it")
    func responseConnectionClose() {
        withFakeSession { _, fake, session in
            let first = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(first)
            fake.last.accept()
            fake.last.respond(response(body: "bye", fields: ["Connection: close"]))
            #expect(first.bodies == ["bye"])
            #expect(fake.last.isClosed)
            let second = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(second)
            #expect(fake.connections.count == 2)
            fake.last.accept()
            fake.last.respond(response(body: "new"))
            #expect(second.bodies == ["new"])
        }
    }

    @Test("Connection: close in the request is sent and closes the connection after the response")
    func requestConnectionClose() {
        withFakeSession { _, fake, session in
            var request = HTTPRequest(method: .get, scheme: "http", authority: "example.com", path: "/")
            request.headerFields[.connection] = "close"
            let tracker = DataTaskTracker()
            session.dataTaskPublisher(for: request).subscribe(tracker)
            fake.last.accept()
            #expect(fake.last.writtenText == "GET / HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\nAccept-Encoding: gzip, deflate\r\n\r\n")
            fake.last.respond(response(body: "ok"))
            #expect(tracker.bodies == ["ok"])
            #expect(fake.last.isClosed)
        }
    }

    @Test("HTTP/1.0 without keep-alive and close-delimited bodies end the connection")
    func closeDelimited() {
        withFakeSession { _, fake, session in
            let tracker = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(tracker)
            fake.last.accept()
            fake.last.respond("HTTP/1.0 200 OK\r\n\r\nuntil the end")
            #expect(tracker.values.isEmpty)
            fake.last.endOfStream()
            #expect(tracker.bodies == ["until the end"])
            #expect(tracker.completion == .finished)
            #expect(fake.last.isClosed)
        }
    }

    @Test("a stale keep-alive connection: an idempotent request is retried once, transparently")
    func staleConnectionRetry() {
        withFakeSession { _, fake, session in
            let first = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(first)
            fake.last.accept()
            fake.last.respond(response(body: "1"))
            let second = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(second)
            #expect(fake.connections.count == 1)
            // The server had closed the idle connection just as the request went out.
            fake.last.completeWrites()
            fake.last.endOfStream()
            #expect(fake.connections[0].isClosed)
            #expect(fake.connections.count == 2, "a fresh connection for the retry")
            #expect(second.events.count == 1, "nothing reached the subscriber")
            fake.last.accept()
            #expect(fake.last.requestLines == ["GET /a HTTP/1.1"])
            fake.last.respond(response(body: "2"))
            #expect(second.bodies == ["2"])
            #expect(second.completion == .finished)
        }
    }

    @Test("a reset on a reused connection before the response is retried too")
    func resetRetry() {
        withFakeSession { _, fake, session in
            let first = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(first)
            fake.last.accept()
            fake.last.respond(response(body: "1"))
            let second = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(second)
            fake.last.reset()
            #expect(fake.connections.count == 2)
            fake.last.accept()
            fake.last.respond(response(body: "2"))
            #expect(second.bodies == ["2"])
        }
    }

    @Test("the retry happens once: a second stale failure reaches the subscriber")
    func retryOnlyOnce() {
        withFakeSession { _, fake, session in
            let first = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(first)
            fake.last.accept()
            fake.last.respond(response(body: "1"))
            let second = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(second)
            fake.last.endOfStream()
            fake.last.accept()
            fake.last.endOfStream()
            #expect(second.completion == .failure(UVURLError(.networkConnectionLost)))
            #expect(fake.connections.count == 2)
        }
    }

    @Test("POST is not retried on a stale connection: it fails with networkConnectionLost")
    func postNotRetried() {
        withFakeSession { _, fake, session in
            let first = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(first)
            fake.last.accept()
            fake.last.respond(response(body: "1"))
            let post = DataTaskTracker()
            let request = HTTPRequest(method: .post, scheme: "http", authority: "example.com", path: "/a")
            session.dataTaskPublisher(for: request, body: Data("x".utf8)).subscribe(post)
            fake.last.endOfStream()
            #expect(post.completion == .failure(UVURLError(.networkConnectionLost)))
            #expect(fake.connections.count == 1)
        }
    }

    @Test("a response truncated after bytes arrived is not retried")
    func truncatedNotRetried() {
        withFakeSession { _, fake, session in
            let first = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(first)
            fake.last.accept()
            fake.last.respond(response(body: "1"))
            let second = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(second)
            fake.last.respond("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
            fake.last.endOfStream()
            if case .failure(let error) = second.completion {
                #expect(error.code == .networkConnectionLost)
                #expect(error.detail == "truncated body: connection closed before Content-Length bytes arrived")
            } else {
                Issue.record("expected a failure, got \(second.history)")
            }
            #expect(fake.connections.count == 1)
        }
    }

    @Test("the server closing an idle connection removes it from the pool")
    func serverClosesIdle() {
        withFakeSession { _, fake, session in
            let first = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(first)
            fake.last.accept()
            fake.last.respond(response())
            fake.last.endOfStream()
            #expect(fake.last.isClosed)
            #expect(session.engine.connectionCount == 0)
            let second = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(second)
            #expect(fake.connections.count == 2)
            fake.last.accept()
            fake.last.respond(response(body: "fresh"))
            #expect(second.bodies == ["fresh"])
        }
    }

    @Test("bytes on an idle connection close it")
    func unexpectedBytesOnIdle() {
        withFakeSession { _, fake, session in
            let first = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(first)
            fake.last.accept()
            fake.last.respond(response())
            fake.last.respond("HTTP/1.1 200 OK\r\n")
            #expect(fake.last.isClosed)
            #expect(session.engine.connectionCount == 0)
        }
    }

    @Test("bytes after the end of a response: delivered, then the connection is not reused")
    func bytesAfterResponse() {
        withFakeSession { _, fake, session in
            let first = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(first)
            fake.last.accept()
            fake.last.respond(response(body: "1") + "garbage")
            #expect(first.bodies == ["1"])
            #expect(fake.last.isClosed)
        }
    }

    @Test("a response that ends before the request was fully written closes the connection")
    func earlyResponse() {
        withFakeSession { _, fake, session in
            let tracker = DataTaskTracker()
            let request = HTTPRequest(method: .put, scheme: "http", authority: "example.com", path: "/big")
            session.dataTaskPublisher(for: request, body: Data(repeating: 1, count: 100)).subscribe(tracker)
            fake.last.accept()
            // The server answers before our write completed.
            fake.last.send(response("413 Content Too Large"))
            #expect(tracker.statusCodes == [413])
            #expect(fake.last.isClosed)
        }
    }

    @Test("a write error fails the request and closes the connection")
    func writeError() {
        withFakeSession { _, fake, session in
            let tracker = DataTaskTracker()
            let request = HTTPRequest(method: .post, scheme: "http", authority: "example.com", path: "/")
            session.dataTaskPublisher(for: request, body: Data("x".utf8)).subscribe(tracker)
            fake.last.accept()
            fake.last.failWrite()
            #expect(tracker.completion == .failure(UVURLError(.networkConnectionLost)))
            #expect(fake.last.isClosed)
        }
    }

    @Test("a connect failure fails the oldest waiting request; the others get a new connection")
    func connectFailureFailsOne() {
        var configuration = UVURLSession.Configuration()
        configuration.maximumConnectionsPerHost = 1
        withFakeSession(configuration: configuration) { _, fake, session in
            let first = DataTaskTracker(), second = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(first)
            session.dataTaskPublisher(for: exampleURL).subscribe(second)
            fake.last.refuse()
            if case .failure(let error) = first.completion {
                #expect(error.code == .cannotConnectToHost)
                #expect(error.underlyingErrorName == "UV_ECONNREFUSED")
            } else {
                Issue.record("expected a failure, got \(first.history)")
            }
            #expect(fake.connections.count == 2)
            fake.last.accept()
            fake.last.respond(response(body: "2"))
            #expect(second.bodies == ["2"])
        }
    }

    @Test("invalidateAndCancel fails running tasks with cancelled, closes connections, refuses later tasks")
    func invalidateAndCancel() {
        withFakeSession { _, fake, session in
            let idle = DataTaskTracker()
            session.dataTaskPublisher(for: URL(string: "http://idle.example/")!).subscribe(idle)
            fake.last.accept()
            fake.last.respond(response())
            let running = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(running)
            fake.last.accept()
            session.invalidateAndCancel()
            #expect(running.completion == .failure(UVURLError(.cancelled)))
            #expect(fake.openConnections.isEmpty)
            #expect(fake.isShutDown)
            let late = DataTaskTracker()
            session.dataTaskPublisher(for: exampleURL).subscribe(late)
            #expect(late.completion == .failure(UVURLError(.resourceUnavailable)))
        }
    }
}
