import Testing
@testable import UVCombineWebSocketCore

@Suite("WebSocket frame encoder and decoder")
struct WebSocketFrameCodecTests {
    /// Decodes `bytes` as a client does (unmasked frames expected).
    static func decodeError(_ bytes: [UInt8], compression: Bool = false, limit: Int = 1 << 20) -> WebSocketProtocolError? {
        var decoder = WebSocketFrameDecoder(expectsMasked: false, maximumPayloadLength: limit)
        decoder.allowsCompression = compression
        decoder.append(bytes)
        do throws(WebSocketProtocolError) {
            _ = try decoder.next()
            return nil
        } catch {
            return error
        }
    }

    @Test("RFC 6455 5.7's masked 'Hello' with key 37 fa 21 3d")
    func maskedHello() {
        var encoder = WebSocketFrameEncoder(masks: true)
        var out: [UInt8] = []
        encoder.encode(.text, payload: Array("Hello".utf8), maskingKey: 0x37FA_213D, into: &out)
        #expect(out == [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
    }

    @Test("lengths use the shortest form: 125, 126 and 65536 bytes")
    func lengthForms() throws {
        var encoder = WebSocketFrameEncoder(masks: false)
        for (count, header) in [(125, [0x82, 125]), (126, [0x82, 126, 0, 126]), (65_536, [0x82, 127, 0, 0, 0, 0, 0, 1, 0, 0])] {
            var out: [UInt8] = []
            encoder.encode(.binary, payload: [UInt8](repeating: 7, count: count), into: &out)
            #expect(Array(out.prefix(header.count)) == header.map(UInt8.init))
            var decoder = WebSocketFrameDecoder(expectsMasked: false, maximumPayloadLength: 1 << 20)
            decoder.append(out)
            let frame = try #require(try decoder.next())
            #expect(frame.payloadCount == count && frame.fin && frame.opcode == .binary)
        }
    }

    @Test("a masked frame round-trips through a server-side decoder, split byte by byte")
    func maskedRoundTrip() throws {
        var encoder = WebSocketFrameEncoder(masks: true)
        let payload = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        var out: [UInt8] = []
        encoder.encode(.binary, payload: payload, fin: false, into: &out)
        var decoder = WebSocketFrameDecoder(expectsMasked: true, maximumPayloadLength: 1 << 20)
        var frame: WebSocketFrameDecoder.Frame?
        for byte in out {
            #expect(frame == nil)
            decoder.append([byte])
            frame = try decoder.next()
        }
        let decoded = try #require(frame)
        #expect(!decoded.fin)
        #expect(decoder.payload(of: decoded) == payload)
    }

    @Test("masking keys differ between frames (drawn from the CSPRNG)")
    func keysDiffer() {
        var encoder = WebSocketFrameEncoder(masks: true)
        var keys = Set<[UInt8]>()
        for _ in 0..<16 {
            var out: [UInt8] = []
            encoder.encode(.text, payload: [], into: &out)
            keys.insert(Array(out[2..<6]))
        }
        #expect(keys.count > 1)
    }

    @Test("mask at every offset equals the byte-wise XOR")
    func maskOffsets() {
        let key: [UInt8] = [1, 2, 3, 4]
        for offset in 0..<4 {
            for count in [0, 1, 7, 8, 9, 31] {
                var bytes = (0..<count).map { UInt8($0) }
                let expected = bytes.enumerated().map { $0.element ^ key[($0.offset + offset) & 3] }
                bytes.withUnsafeMutableBytes { WebSocketFrameEncoder.mask($0, key: key, offset: offset) }
                #expect(bytes == expected)
            }
        }
    }

    @Test("protocol errors close with 1002", arguments: [
        ([0xC1, 0x00], "reserved bit RSV1 set without an extension"),
        ([0xA1, 0x00], "reserved bit RSV2 set"),
        ([0x91, 0x00], "reserved bit RSV3 set"),
        ([0x83, 0x00], "unknown opcode 0x3"),
        ([0x8B, 0x00], "unknown opcode 0xb"),
        ([0x81, 0x80, 0, 0, 0, 0], "a masked frame from the server"),
        ([0x09, 0x00], "a fragmented ping frame"),
        ([0x88, 0x7E, 0x00, 0x7E], "a close frame longer than 125 bytes"),
        ([0x89, 0x7E, 0x00, 0x7E], "a ping frame longer than 125 bytes"),
        ([0x82, 0x7E, 0x00, 0x05], "a 16-bit length below 126"),
        ([0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0], "a 64-bit length with its top bit set"),
        ([0x82, 0x7F, 0, 0, 0, 0, 0, 0, 0, 5], "a 64-bit length below 65536"),
    ] as [([UInt8], String)])
    func protocolErrors(_ bytes: [UInt8], reason: String) {
        #expect(Self.decodeError(bytes) == WebSocketProtocolError(.protocolError, reason))
    }

    @Test("RSV1 with permessage-deflate: allowed on a first data frame, 1002 on continuation and control frames")
    func rsv1WithCompression() {
        #expect(Self.decodeError([0xC1, 0x00], compression: true) == nil)
        #expect(Self.decodeError([0xC0, 0x00], compression: true) == WebSocketProtocolError(.protocolError, "RSV1 set on a continuation frame"))
        #expect(Self.decodeError([0xC9, 0x00], compression: true) == WebSocketProtocolError(.protocolError, "RSV1 set on a ping frame"))
    }

    @Test("a frame longer than the limit fails with 1009 before its payload arrives")
    func oversizedFrame() {
        #expect(Self.decodeError([0x82, 0x7F, 0, 0, 0, 1, 0, 0, 0, 0], limit: 1000)
            == WebSocketProtocolError(.messageTooBig, "a frame of 4294967296 bytes exceeds the limit of 1000"))
    }

    @Test("an unmasked frame from a client fails a server-side decoder with 1002")
    func unmaskedFromClient() {
        var decoder = WebSocketFrameDecoder(expectsMasked: true, maximumPayloadLength: 100)
        decoder.append([0x81, 0x00])
        #expect(throws: WebSocketProtocolError(.protocolError, "an unmasked frame from the client")) { try decoder.next() }
    }
}
