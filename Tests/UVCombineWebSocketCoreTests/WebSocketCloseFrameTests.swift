import Testing
@testable import UVCombineWebSocketCore

@Suite("WebSocket close frames")
struct WebSocketCloseFrameTests {
    @Test("codes that may be received", arguments: [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 4999])
    func sendableCodes(_ code: Int) throws {
        let close = try WebSocketCloseFrame(parsing: [UInt8(code >> 8), UInt8(code & 0xFF)] + Array("ok".utf8))
        #expect(close.code.rawValue == code)
        #expect(close.reason == "ok")
    }

    @Test("codes that may not be sent fail with 1002", arguments: [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535])
    func badCodes(_ code: Int) {
        #expect(throws: WebSocketProtocolError(.protocolError, "close code \(code) may not be sent")) {
            try WebSocketCloseFrame(parsing: [UInt8(code >> 8), UInt8(code & 0xFF)])
        }
    }

    @Test("an empty close frame means 1005; a one-byte one is 1002; a reason that is not UTF-8 is 1007")
    func payloadShapes() throws {
        #expect(try WebSocketCloseFrame(parsing: []).code == .noStatusReceived)
        #expect(throws: WebSocketProtocolError(.protocolError, "a close frame with a one-byte payload")) {
            try WebSocketCloseFrame(parsing: [0x03])
        }
        #expect(throws: WebSocketProtocolError(.invalidFramePayloadData, "a close reason that is not UTF-8")) {
            try WebSocketCloseFrame(parsing: [0x03, 0xE8, 0xFF])
        }
    }

    @Test("an outgoing reason is cut to 123 bytes at a character boundary; 1005 sends an empty payload")
    func outgoingPayload() {
        let payload = WebSocketCloseFrame.payload(code: .normalClosure, reason: String(repeating: "é", count: 100))
        #expect(payload.count == 124) // 2 + 61 two-byte characters
        #expect(payload.prefix(2) == [0x03, 0xE8])
        #expect(WebSocketCloseFrame.payload(code: .noStatusReceived, reason: "x").isEmpty)
    }
}
