import HTTPTypes
import Testing
import UVCombineTesting

@Suite("TestHTTPServer.RequestParser")
struct RequestParserTests {
    typealias Parser = TestHTTPServer.RequestParser

    @Test func parsesARequestArrivingByteByByte() {
        var parser = Parser(connectionNumber: 3)
        let text = "\r\nPOST /p?q=1 HTTP/1.1\r\nHost: h\r\nX-A:  spaced value \t\r\nContent-Length: 3\r\n\r\nabc"
        var events: [Parser.Event] = []
        for byte in text.utf8 {
            parser.append([byte])
            let event = parser.next()
            if event != .needMoreData { events.append(event) }
        }
        guard case .request(let request)? = events.first, events.count == 1 else {
            Issue.record("expected one request, got \(events)")
            return
        }
        #expect(request.method == "POST")
        #expect(request.target == "/p?q=1")
        #expect(request.version == "HTTP/1.1")
        #expect(request.headerFields[HTTPField.Name("X-A")!] == "spaced value")
        #expect(request.body == Array("abc".utf8))
        #expect(request.connectionNumber == 3)
        #expect(parser.bufferedByteCount == 0)
    }

    @Test func pipelinedRequestsComeOutInOrder() {
        var parser = Parser()
        parser.append(Array("GET /1 HTTP/1.1\r\n\r\nGET /2 HTTP/1.0\r\n\r\nGET /3".utf8))
        guard case .request(let first) = parser.next(), case .request(let second) = parser.next() else {
            Issue.record("expected two requests")
            return
        }
        #expect(first.path == "/1" && first.wantsKeepAlive)
        #expect(second.path == "/2" && !second.wantsKeepAlive)
        #expect(parser.next() == .needMoreData)
        #expect(parser.bufferedByteCount == 6)
    }

    @Test func anInvalidRequestStaysInvalid() {
        var parser = Parser()
        parser.append(Array("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n".utf8))
        let event = parser.next()
        #expect(event == .invalid(.badRequest, reason: "invalid field name"))
        parser.append(Array("GET / HTTP/1.1\r\n\r\n".utf8))
        #expect(parser.next() == event)
    }

    @Test func theHeadLimitHolds() {
        var parser = Parser()
        parser.maximumHeadBytes = 100
        parser.append(Array("GET / HTTP/1.1\r\nX: \(String(repeating: "a", count: 200))".utf8))
        guard case .invalid(let status, _) = parser.next() else {
            Issue.record("expected 431")
            return
        }
        #expect(status.code == 431)
    }
}
