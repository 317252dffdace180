import HTTPTypes
import Testing
@testable import UVCombineWebSocketCore

@Suite("WebSocket handshake")
struct WebSocketHandshakeTests {
    static let key = "dGhlIHNhbXBsZSBub25jZQ=="
    static let accept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

    static func answer(_ lines: [String]) -> [UInt8] {
        Array((["HTTP/1.1 101 Switching Protocols"] + lines).map { $0 + "\r\n" }.joined().utf8) + [0x0D, 0x0A]
    }

    static let good = ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: \(accept)"]

    @Test("RFC 6455 1.3's sample key gives its sample accept value")
    func acceptValue() {
        #expect(WebSocketHandshake.acceptValue(for: Self.key) == Self.accept)
    }

    @Test("a fresh key is 16 random bytes in base64, new each time")
    func freshKeys() {
        let first = WebSocketHandshake().key
        #expect(first.count == 24 && first.hasSuffix("=="))
        #expect(first != WebSocketHandshake().key)
    }

    @Test("the request head carries the upgrade, the key, the offers and the extra fields")
    func requestHead() throws {
        let handshake = WebSocketHandshake(subprotocols: ["chat", "superchat"], compression: PerMessageDeflate.Offer(), key: Self.key)
        var extra = HTTPFields()
        extra[HTTPField.Name("X-Token")!] = "abc"
        let head = String(decoding: try handshake.requestHead(authority: "example.com:8080", target: "/chat?x=1", extraFields: extra),
                          as: UTF8.self)
        #expect(head == """
            GET /chat?x=1 HTTP/1.1\r
            Host: example.com:8080\r
            Upgrade: websocket\r
            Connection: Upgrade\r
            Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r
            Sec-WebSocket-Version: 13\r
            Sec-WebSocket-Protocol: chat, superchat\r
            Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r
            X-Token: abc\r
            \r

            """)
    }

    @Test("bad request input is refused")
    func badRequests() {
        let handshake = WebSocketHandshake(subprotocols: ["bad name"], key: Self.key)
        #expect(throws: WebSocketHandshakeError("subprotocol \"bad name\" is not a token")) {
            try handshake.requestHead(authority: "a", target: "/", extraFields: [:])
        }
        var extra = HTTPFields()
        extra[.upgrade] = "h2c"
        #expect(throws: WebSocketHandshakeError("header field Upgrade is set by the WebSocket handshake")) {
            try WebSocketHandshake(key: Self.key).requestHead(authority: "a", target: "/", extraFields: extra)
        }
    }

    @Test("a good answer is accepted, with the chosen subprotocol and deflate parameters")
    func goodAnswer() throws {
        let handshake = WebSocketHandshake(subprotocols: ["chat"], compression: PerMessageDeflate.Offer(), key: Self.key)
        let agreement = try handshake.validate(responseHead: Self.answer(Self.good + [
            "Sec-WebSocket-Protocol: chat",
            "Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; client_max_window_bits=10",
        ]))
        #expect(agreement.subprotocol == "chat")
        var expected = PerMessageDeflate.Parameters()
        expected.serverNoContextTakeover = true
        expected.clientMaxWindowBits = 10
        #expect(agreement.compression == expected)
    }

    @Test("bad answers fail the handshake with the reason", arguments: [
        (["HTTP/1.1 404 Not Found", "", ""], "expected status 101, got 404 Not Found"),
        (["HTTP/1.1 101 Switching Protocols", "Connection: Upgrade", "Sec-WebSocket-Accept: \(accept)", "", ""], "the answer has no \"Upgrade: websocket\""),
        (["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Sec-WebSocket-Accept: \(accept)", "", ""], "the answer has no \"Connection: Upgrade\""),
        (["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade", "", ""], "the answer has no Sec-WebSocket-Accept"),
        (["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: AAAA", "", ""], "Sec-WebSocket-Accept does not match the key"),
        (["HTTP/1.1 101 Switching Protocols"] + good + ["Sec-WebSocket-Protocol: other", "", ""], "the server chose subprotocol \"other\", which was not offered"),
        (["HTTP/1.1 101 Switching Protocols"] + good + ["Sec-WebSocket-Extensions: x-webkit-deflate-frame", "", ""], "the server answered with extension \"x-webkit-deflate-frame\", which was not offered"),
        (["HTTP/1.1 101 Switching Protocols"] + good + ["Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits=16", "", ""], "permessage-deflate parameter client_max_window_bits needs a value from 8 to 15"),
        (["HTTP/1.1 101 Switching Protocols"] + good + ["Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits", "", ""], "permessage-deflate parameter client_max_window_bits needs a value from 8 to 15"),
        (["HTTP/1.1 101 Switching Protocols"] + good + ["Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover=1", "", ""], "permessage-deflate parameter server_no_context_takeover has a value"),
        (["HTTP/1.1 101 Switching Protocols"] + good + ["Sec-WebSocket-Extensions: permessage-deflate; foo", "", ""], "unknown permessage-deflate parameter \"foo\""),
        (["HTTP/1.1 101 Switching Protocols"] + good + ["Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; server_no_context_takeover", "", ""], "permessage-deflate parameter server_no_context_takeover appears twice"),
        (["HTTP/1.1 101 Switching Protocols"] + good + ["Sec-WebSocket-Extensions: permessage-deflate, permessage-deflate", "", ""], "the server answered with permessage-deflate twice"),
        (["HTTP/2 101", "", ""], "the answer does not start with an HTTP/1.1 status line"),
    ] as [([String], String)])
    func badAnswers(_ lines: [String], reason: String) {
        let handshake = WebSocketHandshake(subprotocols: ["chat"], compression: PerMessageDeflate.Offer(), key: Self.key)
        let head = Array(lines.joined(separator: "\r\n").utf8)
        do {
            _ = try handshake.validate(responseHead: head)
            Issue.record("accepted")
        } catch {
            #expect(error.reason.hasPrefix(reason), "\(error.reason)")
        }
    }

    @Test("an extension answer without an offer fails")
    func extensionWithoutOffer() {
        #expect(throws: WebSocketHandshakeError("the server answered with extension \"permessage-deflate\", which was not offered", statusCode: 101)) {
            try WebSocketHandshake(key: Self.key).validate(responseHead: Self.answer(Self.good + ["Sec-WebSocket-Extensions: permessage-deflate"]))
        }
    }

    @Test("the head reader splits the head from the first frame and bounds the head")
    func headReader() throws {
        var reader = WebSocketHeadReader()
        let bytes = Self.answer(Self.good) + [0x81, 0x00]
        let first = try bytes[..<10].withUnsafeBytes { try reader.append($0) }
        #expect(first == nil)
        let result = try #require(try bytes[10...].withUnsafeBytes { try reader.append($0) })
        #expect(result.rest == [0x81, 0x00])
        var big = WebSocketHeadReader()
        #expect(throws: WebSocketHandshakeError("the answer's head exceeds 16384 bytes")) {
            try [UInt8](repeating: 0x41, count: 17_000).withUnsafeBytes { try big.append($0) }
        }
    }
}
