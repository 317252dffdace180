import Dispatch
import Foundation
import HTTPTypes
import Synchronization
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineHTTP
import UVCombineLoop
import UVCombineLoopFoundation
import UVCombineTesting

@Suite("TestHTTPServer")
struct TestHTTPServerTests {
    @Test func answersFromRoutesAndRecordsTheRequest() throws {
        let server = try TestHTTPServer(routes: ["/hello": .text("hello")])
        defer { server.shutdown() }
        #expect(server.url("/hello?x=1").absoluteString == "http://127.0.0.1:\(server.port)/hello?x=1")

        let reply = try rawExchange(port: server.port, get("/hello?x=1", port: server.port, "Connection: close\r\n"))
        #expect(reply.ending == .serverClosed)
        #expect(reply.text == "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 5\r\n" +
                "Connection: close\r\n\r\nhello")
        let parsed = parse(reply.bytes)
        #expect(parsed.response?.status == .ok)
        #expect(parsed.body == Array("hello".utf8))

        #expect(server.requestCount == 1)
        #expect(server.connectionCount == 1)
        let request = try #require(server.requests.first)
        #expect(request.description == "GET /hello?x=1 HTTP/1.1")
        #expect(request.path == "/hello")
        #expect(request.query == "x=1")
        #expect(request.headerFields[HTTPField.Name("Host")!] == "127.0.0.1:\(server.port)")
        #expect(request.headerFields[.connection] == "close")
        #expect(request.connectionNumber == 0)

        let missing = parse(try rawExchange(port: server.port, get("/nope", port: server.port, "Connection: close\r\n")).bytes)
        #expect(missing.response?.status == .notFound)

        server.clearRequests()
        #expect(server.requests.isEmpty)
        #expect(server.requestCount == 2)
        _ = try rawExchange(port: server.port, get("/hello", port: server.port, "Connection: close\r\n"))
        #expect(server.requests.map(\.path) == ["/hello"])
        #expect(server.requestCount == 3)
    }

    @Test func aHandlerSeesTheBody() throws {
        let server = try TestHTTPServer { request in
            .text("\(request.method) \(request.body.count) \(String(decoding: request.body, as: UTF8.self))")
        }
        defer { server.shutdown() }
        let reply = try rawExchange(port: server.port, "POST /items HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n" +
                                    "Connection: close\r\n\r\nabcde")
        #expect(parse(reply.bytes).body == Array("POST 5 abcde".utf8))
        #expect(server.requests.first?.body == Array("abcde".utf8))
    }

    @Test func keepsConnectionsAliveAndClosesWhenAsked() throws {
        let server = try TestHTTPServer(routes: ["/a": .text("A"), "/b": .text("BB")])
        defer { server.shutdown() }
        let (replies, ending) = try converse(port: server.port, [
            (.get, get("/a", port: server.port)),
            (.get, get("/b", port: server.port)),
            (.get, get("/a", port: server.port, "Connection: close\r\n")),
        ])
        #expect(replies.map(\.body) == [Array("A".utf8), Array("BB".utf8), Array("A".utf8)])
        #expect(replies.map(\.keepAlive) == [true, true, false])
        #expect(ending == .serverClosed || ending == .clientClosed)
        #expect(server.connectionCount == 1)
        #expect(server.requests.map(\.connectionNumber) == [0, 0, 0])
    }

    @Test func http10ClosesUnlessKeepAliveIsAsked() throws {
        let server = try TestHTTPServer(routes: ["/": .text("x")])
        defer { server.shutdown() }
        let closing = try rawExchange(port: server.port, "GET / HTTP/1.0\r\n\r\n")
        #expect(closing.ending == .serverClosed)
        #expect(closing.text.contains("Connection: close\r\n"))
        let kept = try rawExchange(port: server.port, "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
                                   stop: { parse($0, endOfInput: false).keepAlive != nil })
        #expect(kept.ending == .clientClosed)
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let server = try TestHTTPServer { .text($0.path) }
        defer { server.shutdown() }
        let requests = get("/one", port: server.port) + get("/two", port: server.port) +
            get("/three", port: server.port, "Connection: close\r\n")
        let reply = try rawExchange(port: server.port, requests)
        #expect(reply.ending == .serverClosed)
        let bodies = reply.text.components(separatedBy: "\r\n\r\n").dropFirst().map { String($0.prefix { $0 != "H" }) }
        #expect(bodies == ["/one", "/two", "/three"])
        #expect(server.requests.map(\.path) == ["/one", "/two", "/three"])
    }

    @Test func headGetsTheHeadOnly() throws {
        let server = try TestHTTPServer(routes: ["/": .text("body")])
        defer { server.shutdown() }
        let reply = try rawExchange(port: server.port, "HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(reply.text.hasSuffix("Content-Length: 4\r\nConnection: close\r\n\r\n"))
        #expect(parse(reply.bytes, method: .head).response?.status == .ok)
    }

    @Test(arguments: [
        ("GARBAGE\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nHost x\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\n folded: x\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400),
        ("GET / HTTP/2.0\r\n\r\n", 505),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 501),
    ])
    func badRequestsGetAnErrorStatusAndAClose(request: String, status: Int) throws {
        let server = try TestHTTPServer(routes: ["/": .text("x")])
        defer { server.shutdown() }
        let reply = try rawExchange(port: server.port, request)
        #expect(reply.ending == .serverClosed)
        #expect(parse(reply.bytes).response?.status.code == status)
        #expect(server.requestCount == 0)
    }

    @Test func anOversizedRequestHeadGets431() throws {
        let server = try TestHTTPServer(routes: ["/": .text("x")])
        defer { server.shutdown() }
        let huge = "GET / HTTP/1.1\r\nX-Big: " + String(repeating: "b", count: 70_000) + "\r\n\r\n"
        let reply = try rawExchange(port: server.port, huge)
        #expect(parse(reply.bytes).response?.status.code == 431)
    }

    // MARK: Faults, byte by byte

    @Test func refuseNeverListens() throws {
        let server = try TestHTTPServer(fault: .refuse)
        defer { server.shutdown() }
        let reply = try rawExchange(port: server.port, get("/", port: server.port))
        if case .failed(let error) = reply.ending {
            #expect(error.kind == .connectionFailed)
            #expect(error.name == "UV_ECONNREFUSED")
        } else {
            Issue.record("expected a refused connection, got \(reply.ending)")
        }
        #expect(server.connectionCount == 0)
    }

    @Test func refuseAsAResponseDropsTheConnectionAndStopsListening() throws {
        let server = try TestHTTPServer(routes: ["/refuse": .fault(.refuse)])
        defer { server.shutdown() }
        let first = try rawExchange(port: server.port, get("/refuse", port: server.port))
        #expect(first.bytes.isEmpty)
        #expect(first.ending == .serverClosed)
        let second = try rawExchange(port: server.port, get("/", port: server.port))
        if case .failed(let error) = second.ending {
            #expect(error.name == "UV_ECONNREFUSED")
        } else {
            Issue.record("expected a refused connection, got \(second.ending)")
        }
    }

    @Test func closeAfterHeadSendsTheHeadOnly() throws {
        let server = try TestHTTPServer(fault: .closeAfterHead, body: Array(repeating: 1, count: 100))
        defer { server.shutdown() }
        let reply = try rawExchange(port: server.port, get("/", port: server.port))
        #expect(reply.ending == .serverClosed)
        #expect(reply.text == "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\n")
        let parsed = parse(reply.bytes)
        #expect(parsed.response?.status == .ok)
        #expect(parsed.error?.code == .networkConnectionLost)
    }

    @Test func closeMidBodySendsHalfTheBody() throws {
        let body = pattern(1000)
        let server = try TestHTTPServer(fault: .closeMidBody, body: body)
        defer { server.shutdown() }
        let reply = try rawExchange(port: server.port, get("/", port: server.port))
        #expect(reply.ending == .serverClosed)
        let parsed = parse(reply.bytes)
        #expect(parsed.body == Array(body[..<500]))
        #expect(parsed.error == UVURLError(.networkConnectionLost,
                                           detail: "truncated body: connection closed before Content-Length bytes arrived"))
    }

    @Test func stallNeverAnswers() throws {
        let server = try TestHTTPServer(routes: ["/stall": .fault(.stall)])
        defer { server.shutdown() }
        let reply = try rawExchange(port: server.port, get("/stall", port: server.port), timeout: .milliseconds(100))
        #expect(reply.ending == .timedOut)
        #expect(reply.bytes.isEmpty)
        #expect(server.requestCount == 1)
    }

    @Test func contentLengthMismatchDeclaresMoreThanItSends() throws {
        let server = try TestHTTPServer(fault: .contentLengthMismatch, body: Array("12345".utf8))
        defer { server.shutdown() }
        let reply = try rawExchange(port: server.port, get("/", port: server.port))
        #expect(reply.ending == .serverClosed)
        #expect(reply.text.hasSuffix("Content-Length: 15\r\nConnection: close\r\n\r\n12345"))
        #expect(parse(reply.bytes).error?.code == .networkConnectionLost)
    }

    @Test func chunkedSendsManyChunksAndKeepsTheConnection() throws {
        let body = Array("abcdefghij".utf8)
        let server = try TestHTTPServer(routes: ["/c": .fault(.chunked(), body: body),
                                                 "/c3": .fault(.chunked(chunkSize: 3), body: body)])
        defer { server.shutdown() }
        let (replies, _) = try converse(port: server.port, [(.get, get("/c", port: server.port)),
                                                            (.get, get("/c3", port: server.port))])
        #expect(replies.map(\.body) == [body, body])
        #expect(replies.map(\.keepAlive) == [true, true])
        #expect(server.connectionCount == 1)

        let raw = try rawExchange(port: server.port, get("/c3", port: server.port, "Connection: close\r\n"))
        #expect(raw.text.hasSuffix("Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" +
                                   "3\r\nabc\r\n3\r\ndef\r\n3\r\nghi\r\n1\r\nj\r\n0\r\n\r\n"))
    }

    @Test func slowBodyTricklesOnTheServersTimers() throws {
        let delay = UVLoop.SchedulerTimeType.Stride.milliseconds(30)
        let body = pattern(400)
        let server = try TestHTTPServer(fault: .slowBody(chunks: 4, delay: delay), body: body)
        defer { server.shutdown() }
        let reply = try rawExchange(port: server.port, get("/", port: server.port, "Connection: close\r\n"))
        #expect(reply.ending == .serverClosed)
        #expect(parse(reply.bytes).body == body)
        #expect(reply.reads.count >= 4) // the head, then the parts a delay apart
        let span = (reply.reads.last?.time ?? 0) - (reply.reads.first?.time ?? 0)
        // Timers never fire early: the last part comes four delays after
        // the head was written, at least three after the head was read.
        #expect(span >= UInt64(3 * delay.nanoseconds))
    }

    @Test func malformedStatusLineIsNotHTTP() throws {
        let server = try TestHTTPServer(fault: .malformedStatusLine)
        defer { server.shutdown() }
        let reply = try rawExchange(port: server.port, get("/", port: server.port))
        #expect(reply.ending == .serverClosed)
        #expect(reply.text.hasPrefix("HTTP/1.1 abc Malformed\r\n"))
        #expect(parse(reply.bytes).error?.code == .badServerResponse)
    }

    @Test func oversizedHeadersExceedTheClientsLimit() throws {
        let server = try TestHTTPServer(fault: .oversizedHeaders(bytes: 100_000))
        defer { server.shutdown() }
        let reply = try rawExchange(port: server.port, get("/", port: server.port))
        #expect(reply.ending == .serverClosed)
        #expect(reply.bytes.count > 100_000)
        #expect(reply.text.contains("X-Oversized: aaaa"))
        #expect(parse(reply.bytes).error?.code == .badServerResponse) // over the parser's 64 KiB
    }

    @Test func infiniteRedirectPointsToANewURLEachTime() throws {
        let server = try TestHTTPServer(routes: ["/loop": .fault(.infiniteRedirect)])
        defer { server.shutdown() }
        let (replies, _) = try converse(port: server.port, [(.get, get("/loop", port: server.port)),
                                                            (.get, get("/loop?hop=1", port: server.port)),
                                                            (.get, get("/loop?hop=2", port: server.port))])
        #expect(replies.map { $0.response?.status } == [.found, .found, .found])
        #expect(replies.map { $0.response?.headerFields[.location] } == ["/loop?hop=1", "/loop?hop=2", "/loop?hop=3"])
        #expect(server.connectionCount == 1)
    }

    @Test func keepAliveClosedByServerClosesTheIdleConnectionAfterAFullResponse() throws {
        let server = try TestHTTPServer(routes: ["/": .fault(.keepAliveClosedByServer, body: Array("ok".utf8))])
        defer { server.shutdown() }
        let (replies, ending) = try converse(port: server.port, [(.get, get("/", port: server.port)),
                                                                 (.get, get("/", port: server.port))])
        #expect(replies.first?.body == Array("ok".utf8))
        #expect(replies.first?.keepAlive == true) // the response said nothing about closing
        // The second request went out on the connection the server was
        // closing: the classic keep-alive race a client must retry.
        #expect(replies.count == 2)
        #expect(replies.last?.error == UVURLError(.networkConnectionLost,
                                                 detail: "connection closed before the response began"))
        switch ending {
        case .serverClosed: break
        case .failed(let error): #expect(error.kind == .connectionLost) // the request arrived before the close: reset
        default: Issue.record("unexpected ending \(ending)")
        }
        let raw = try rawExchange(port: server.port, get("/", port: server.port))
        #expect(raw.text == "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        #expect(raw.ending == .serverClosed)
    }

    // MARK: Loops, threads and lifetime

    @Test func runsOnAGivenLoopWithItsClient() throws {
        try withClientLoop { loop in
            let server = try TestHTTPServer(loop: loop, routes: ["/": .text("same loop")])
            #expect(server.loop === loop)
            var reply = Data()
            let request = Array(get("/", port: server.port, "Connection: close\r\n").utf8)
            let fetching = UVTCP.fetch(host: "127.0.0.1", port: server.port, send: request, on: loop)
                .sink(receiveCompletion: { _ in server.shutdown() }, receiveValue: { reply = $0 })
            loop.run()
            _ = fetching
            #expect(parse(Array(reply)).body == Array("same loop".utf8))
        }
    }

    @Test func countersAreThreadSafeAndShutdownRefusesNewConnections() throws {
        weak var weakServer: TestHTTPServer?
        var port = 0
        try {
            let server = try TestHTTPServer(routes: ["/": .text("x")])
            weakServer = server
            port = server.port
            let target = port
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                for _ in 0..<5 {
                    _ = try? rawExchange(port: target, get("/", port: target, "Connection: close\r\n"))
                }
            }
            #expect(server.requestCount == 20)
            #expect(server.connectionCount == 20)
            #expect(server.requests.count == 20)
            server.shutdown()
            server.shutdown() // idempotent
        }()
        #expect(weakServer == nil)
        let after = try rawExchange(port: port, get("/", port: port))
        if case .failed(let error) = after.ending {
            #expect(error.kind == .connectionFailed)
        } else {
            Issue.record("expected a refused connection after shutdown, got \(after.ending)")
        }
    }
}

/// Bytes 0, 1, 2, ... 255, 0, 1, ... of length `count`.
func pattern(_ count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0) }
}
