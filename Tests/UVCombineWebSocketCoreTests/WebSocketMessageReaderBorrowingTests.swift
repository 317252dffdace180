import Testing
@testable import UVCombineWebSocketCore

/// `nextBorrowed()` and `withPayload(_:)`: the same messages and errors as
/// `next()`, with the bytes lent instead of handed over.
@Suite("WebSocket message reader, borrowed")
struct WebSocketMessageReaderBorrowingTests {
    static func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, rsv1: Bool = false) -> [UInt8] {
        WebSocketMessageReaderTests.frame(opcode, payload, fin: fin, rsv1: rsv1)
    }

    /// Each event with a copy of what was lent with it.
    static func borrowed(_ bytes: [UInt8], limit: Int = 1 << 20, compression: PerMessageDeflate.Parameters? = nil)
        throws(WebSocketProtocolError) -> [(WebSocketMessageReader.BorrowedEvent, [UInt8])] {
        var reader = WebSocketMessageReader(maximumMessageSize: limit)
        if let compression { try reader.enableCompression(compression) }
        reader.append(bytes)
        var events: [(WebSocketMessageReader.BorrowedEvent, [UInt8])] = []
        while let event = try reader.nextBorrowed() {
            events.append((event, reader.withPayload { Array($0) }))
        }
        return events
    }

    @Test("a one-frame message is lent where it was received; fragments and pings as with next()")
    func messagesAndControlFrames() throws {
        let bytes = Self.frame(.binary, [1, 2, 3]) + Self.frame(.text, Array("He".utf8), fin: false) + Self.frame(.ping, [7])
            + Self.frame(.continuation, Array("llo".utf8)) + Self.frame(.pong, [8]) + Self.frame(.text, [])
        let events = try Self.borrowed(bytes)
        #expect(events.map(\.0) == [.message(.binary), .ping, .message(.text), .pong, .message(.text)])
        #expect(events.map(\.1) == [[1, 2, 3], [7], Array("Hello".utf8), [8], []])
    }

    @Test("the payload of a one-frame message points into the bytes received (no copy)")
    func lentInPlace() throws {
        var reader = WebSocketMessageReader(maximumMessageSize: 1 << 20)
        reader.append(Self.frame(.binary, [UInt8](repeating: 5, count: 300)))
        #expect(try reader.nextBorrowed() == .message(.binary))
        let count = reader.withPayload { $0.count }
        #expect(count == 300)
        #expect(reader.bufferedByteCount == 0)
        #expect(try reader.nextBorrowed() == nil)
        #expect(reader.withPayload { $0.count } == 0)
    }

    @Test("a close frame lends nothing")
    func closeFrame() throws {
        let events = try Self.borrowed(Self.frame(.close, [0x03, 0xE8, 0x62, 0x79, 0x65]))
        #expect(events.count == 1)
        #expect(events[0].0 == .close(try WebSocketCloseFrame(parsing: [0x03, 0xE8, 0x62, 0x79, 0x65])))
        #expect(events[0].1 == [])
    }

    @Test("compressed messages are lent from the message buffer, its capacity reused")
    func compressed() throws {
        let compressor = try DeflateCompressor(windowBits: 15, noContextTakeover: false)
        let text = Array(String(repeating: "hello websocket ", count: 50).utf8)
        let bytes = Self.frame(.text, try compressor.compress(text), rsv1: true)
            + Self.frame(.text, try compressor.compress(text), rsv1: true) + Self.frame(.binary, [9])
        let events = try Self.borrowed(bytes, compression: PerMessageDeflate.Parameters())
        #expect(events.map(\.0) == [.message(.text), .message(.text), .message(.binary)])
        #expect(events.map(\.1) == [text, text, [9]])
    }

    @Test("a one-frame text message that is not UTF-8 fails with 1007, checked in place")
    func invalidText() {
        #expect(throws: WebSocketProtocolError(.invalidFramePayloadData, "a text message that is not UTF-8")) {
            try Self.borrowed(Self.frame(.text, [0x61, 0xFF]))
        }
        #expect(throws: WebSocketProtocolError(.invalidFramePayloadData, "a text message that ends inside a UTF-8 sequence")) {
            try Self.borrowed(Self.frame(.text, [0x61, 0xE2, 0x82]))
        }
    }

    @Test("a one-frame message over the limit fails with 1009 before it is buffered")
    func tooBig() {
        #expect(throws: WebSocketProtocolError(.messageTooBig, "a frame of 200 bytes exceeds the limit of 100")) {
            try Self.borrowed(Self.frame(.binary, [UInt8](repeating: 0, count: 200)), limit: 100)
        }
    }

    @Test("next() after nextBorrowed() hands over arrays: the same events as before the split")
    func ownedMatchesBorrowed() throws {
        let bytes = Self.frame(.binary, [1, 2]) + Self.frame(.binary, [3], fin: false) + Self.frame(.continuation, [4])
            + Self.frame(.ping, [5])
        var reader = WebSocketMessageReader(maximumMessageSize: 1 << 20)
        reader.append(bytes)
        #expect(try reader.next() == .message(.binary, [1, 2]))
        #expect(try reader.next() == .message(.binary, [3, 4]))
        #expect(try reader.next() == .ping([5]))
        #expect(try reader.next() == nil)
    }

    @Test("after a message larger than the kept capacity, the next one is assembled afresh")
    func largeMessageReleased() throws {
        let big = [UInt8](repeating: 1, count: WebSocketMessageReader.retainedMessageCapacity * 2)
        let bytes = Self.frame(.binary, big, fin: false) + Self.frame(.continuation, [2])
            + Self.frame(.binary, [3], fin: false) + Self.frame(.continuation, [4])
        let events = try Self.borrowed(bytes, limit: 1 << 20)
        #expect(events.map(\.1.count) == [big.count + 1, 2])
        #expect(events.last?.1 == [3, 4])
    }
}
