import Testing
@testable import UVCombineWebSocketCore

@Suite("WebSocket message reader")
struct WebSocketMessageReaderTests {
    /// An unmasked frame as a server sends it.
    static func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, rsv1: Bool = false) -> [UInt8] {
        var encoder = WebSocketFrameEncoder(masks: false)
        var out: [UInt8] = []
        encoder.encode(opcode, payload: payload, fin: fin, rsv1: rsv1, into: &out)
        return out
    }

    static func events(_ bytes: [UInt8], limit: Int = 1 << 20,
                       compression: PerMessageDeflate.Parameters? = nil) throws(WebSocketProtocolError) -> [WebSocketMessageReader.Event] {
        var reader = WebSocketMessageReader(maximumMessageSize: limit)
        if let compression { try reader.enableCompression(compression) }
        reader.append(bytes)
        var events: [WebSocketMessageReader.Event] = []
        while let event = try reader.next() { events.append(event) }
        return events
    }

    @Test("a fragmented text message with a ping between its fragments")
    func fragmentsWithPing() throws {
        let bytes = Self.frame(.text, Array("Hel".utf8), fin: false) + Self.frame(.ping, [1, 2])
            + Self.frame(.continuation, Array("lo".utf8), fin: false) + Self.frame(.continuation, [], fin: true)
        #expect(try Self.events(bytes) == [.ping([1, 2]), .message(.text, Array("Hello".utf8))])
    }

    @Test("a UTF-8 character split between fragments is accepted")
    func splitCharacter() throws {
        let euro: [UInt8] = [0xE2, 0x82, 0xAC]
        let bytes = Self.frame(.text, Array(euro[..<1]), fin: false) + Self.frame(.continuation, Array(euro[1...]))
        #expect(try Self.events(bytes) == [.message(.text, euro)])
    }

    @Test("fragment order errors fail with 1002")
    func orderErrors() {
        #expect(throws: WebSocketProtocolError(.protocolError, "a continuation frame outside a fragmented message")) {
            try Self.events(Self.frame(.continuation, [1]))
        }
        #expect(throws: WebSocketProtocolError(.protocolError, "a binary frame inside a fragmented message")) {
            try Self.events(Self.frame(.text, [0x61], fin: false) + Self.frame(.binary, [1]))
        }
    }

    @Test("invalid UTF-8 fails with 1007 in the first fragment, before the message ends")
    func invalidTextEarly() {
        #expect(throws: WebSocketProtocolError(.invalidFramePayloadData, "a text message that is not UTF-8")) {
            try Self.events(Self.frame(.text, [0x61, 0xFF], fin: false))
        }
        #expect(throws: WebSocketProtocolError(.invalidFramePayloadData, "a text message that ends inside a UTF-8 sequence")) {
            try Self.events(Self.frame(.text, [0x61, 0xE2, 0x82]))
        }
    }

    @Test("a message whose fragments together exceed the limit fails with 1009")
    func messageTooBig() {
        let bytes = Self.frame(.binary, [UInt8](repeating: 1, count: 60), fin: false) + Self.frame(.continuation, [UInt8](repeating: 1, count: 60))
        #expect(throws: WebSocketProtocolError(.messageTooBig, "a message of more than 100 bytes (120 so far)")) {
            try Self.events(bytes, limit: 100)
        }
    }

    @Test("a close frame is parsed and checked")
    func close() throws {
        #expect(try Self.events(Self.frame(.close, [0x0F, 0xA0] + Array("app".utf8)))
            == [.close(try WebSocketCloseFrame(parsing: [0x0F, 0xA0] + Array("app".utf8)))])
        #expect(throws: WebSocketProtocolError(.protocolError, "close code 1005 may not be sent")) {
            try Self.events(Self.frame(.close, [0x03, 0xED]))
        }
    }

    @Test("compressed messages with context takeover: two messages in one stream")
    func compressedTakeover() throws {
        let compressor = try DeflateCompressor(windowBits: 15, noContextTakeover: false)
        let text = Array(String(repeating: "hello websocket ", count: 50).utf8)
        let first = try compressor.compress(text)
        let second = try compressor.compress(text)
        #expect(second.count < first.count) // the window carried over
        let bytes = Self.frame(.text, first, rsv1: true) + Self.frame(.text, second, rsv1: true) + Self.frame(.binary, [9])
        #expect(try Self.events(bytes, compression: PerMessageDeflate.Parameters())
            == [.message(.text, text), .message(.text, text), .message(.binary, [9])])
    }

    @Test("a compressed message split into fragments")
    func compressedFragments() throws {
        let compressor = try DeflateCompressor(windowBits: 15, noContextTakeover: true)
        let data = (0..<5000).map { UInt8(truncatingIfNeeded: $0 % 251) }
        let compressed = try compressor.compress(data)
        let half = compressed.count / 2
        let bytes = Self.frame(.binary, Array(compressed[..<half]), fin: false, rsv1: true) + Self.frame(.continuation, Array(compressed[half...]))
        var parameters = PerMessageDeflate.Parameters()
        parameters.serverNoContextTakeover = true
        #expect(try Self.events(bytes, compression: parameters) == [.message(.binary, data)])
    }

    @Test("a deflate bomb fails with 1009 at the limit, not after inflating it all")
    func deflateBomb() throws {
        let compressor = try DeflateCompressor(windowBits: 15, noContextTakeover: true)
        let bomb = try compressor.compress([UInt8](repeating: 0, count: 10 << 20))
        #expect(bomb.count < 20_000)
        #expect(throws: WebSocketProtocolError(.messageTooBig, "the inflated message exceeds the limit of 65536 bytes")) {
            try Self.events(Self.frame(.binary, bomb, rsv1: true), limit: 65_536, compression: PerMessageDeflate.Parameters())
        }
    }

    @Test("compressed data that is not DEFLATE fails with 1007")
    func notDeflate() {
        #expect(throws: WebSocketProtocolError(.invalidFramePayloadData, "the compressed message is not valid DEFLATE: invalid block type")) {
            try Self.events(Self.frame(.binary, [0xFF, 0xFF, 0xFF], rsv1: true), compression: PerMessageDeflate.Parameters())
        }
    }

    @Test("compressed text that inflates to invalid UTF-8 fails with 1007")
    func compressedInvalidText() throws {
        let compressor = try DeflateCompressor(windowBits: 15, noContextTakeover: true)
        let compressed = try compressor.compress([0x61, 0xC0, 0x80])
        #expect(throws: WebSocketProtocolError(.invalidFramePayloadData, "a text message that is not UTF-8")) {
            try Self.events(Self.frame(.text, compressed, rsv1: true), compression: PerMessageDeflate.Parameters())
        }
    }
}

@Suite("permessage-deflate codec")
struct DeflateCodecTests {
    @Test("empty messages compress to one 0x00 byte, also the second in a row, and inflate back (RFC 7692, 7.2.3.6)")
    func emptyMessages() throws {
        let compressor = try DeflateCompressor(windowBits: 12, noContextTakeover: false)
        #expect(try compressor.compress([]) == [0x00])
        #expect(try compressor.compress([]) == [0x00])
        let inflater = try DeflateDecompressor(noContextTakeover: false)
        for payload in [[0x00], [], [0x00]] as [[UInt8]] {
            var message: [UInt8] = []
            try payload.withUnsafeBytes { raw in
                do throws(WebSocketProtocolError) { try inflater.inflate(raw, into: &message, limit: 10) } catch { throw error }
            }
            try inflater.finishMessage(into: &message, limit: 10)
            #expect(message.isEmpty)
        }
        let after = try compressor.compress(Array("x".utf8))
        var message: [UInt8] = []
        try after.withUnsafeBytes { raw in
            do throws(WebSocketProtocolError) { try inflater.inflate(raw, into: &message, limit: 10) } catch { throw error }
        }
        try inflater.finishMessage(into: &message, limit: 10)
        #expect(message == Array("x".utf8))
    }
}
