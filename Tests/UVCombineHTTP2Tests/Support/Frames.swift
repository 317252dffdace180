/// HTTP/2 frames as bytes, for the hostile-peer tests (a peer nobody's
/// library would let us be) and for reading what the client wrote.
enum Frame {
    static let data: UInt8 = 0x0, headers: UInt8 = 0x1, rstStream: UInt8 = 0x3, settings: UInt8 = 0x4
    static let ping: UInt8 = 0x6, goAway: UInt8 = 0x7, windowUpdate: UInt8 = 0x8, continuation: UInt8 = 0x9
    static let endStream: UInt8 = 0x1, endHeaders: UInt8 = 0x4, ack: UInt8 = 0x1

    /// The client connection preface (RFC 9113, section 3.4).
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// One frame: 9-byte header, then the payload.
    static func make(type: UInt8, flags: UInt8 = 0, stream: UInt32 = 0, payload: [UInt8] = []) -> [UInt8] {
        let length = payload.count
        return [UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff), type, flags]
            + bigEndian(stream & 0x7fff_ffff) + payload
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24 & 0xff), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    static func settings(_ entries: [(UInt16, UInt32)] = []) -> [UInt8] {
        make(type: settings, payload: entries.flatMap { [UInt8($0.0 >> 8), UInt8($0.0 & 0xff)] + bigEndian($0.1) })
    }

    static func pingFrame(_ opaque: UInt64 = 0) -> [UInt8] {
        make(type: ping, payload: (0..<8).map { UInt8(opaque >> (56 - 8 * UInt64($0)) & 0xff) })
    }

    static func rst(stream: UInt32, code: UInt32) -> [UInt8] {
        make(type: rstStream, stream: stream, payload: bigEndian(code))
    }

    static func goAwayFrame(last: UInt32, code: UInt32) -> [UInt8] {
        make(type: goAway, payload: bigEndian(last) + bigEndian(code))
    }

    /// HPACK integer with an `prefix`-bit prefix (RFC 7541, section 5.1),
    /// `first` holding the pattern bits above the prefix.
    static func hpackInteger(_ value: Int, prefix: Int, first: UInt8) -> [UInt8] {
        let limit = (1 << prefix) - 1
        if value < limit { return [first | UInt8(value)] }
        var bytes = [first | UInt8(limit)]
        var rest = value - limit
        while rest >= 128 {
            bytes.append(UInt8(rest % 128 + 128))
            rest /= 128
        }
        bytes.append(UInt8(rest))
        return bytes
    }

    /// A literal field without indexing, new name, no Huffman.
    static func hpackLiteral(_ name: String, _ value: String) -> [UInt8] {
        [0x00] + hpackInteger(name.utf8.count, prefix: 7, first: 0) + Array(name.utf8)
            + hpackInteger(value.utf8.count, prefix: 7, first: 0) + Array(value.utf8)
    }

    /// `:status` from the static table (200 is index 8).
    static let status200: [UInt8] = [0x88]

    /// The frames in `bytes` (after the client preface, if it starts with
    /// one): type, flags, stream, payload.
    static func parse(_ bytes: [UInt8]) -> [(type: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8])] {
        var index = bytes.starts(with: preface) ? preface.count : 0
        var frames: [(type: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8])] = []
        while index + 9 <= bytes.count {
            let length = Int(bytes[index]) << 16 | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2])
            let stream = UInt32(bytes[index + 5]) << 24 | UInt32(bytes[index + 6]) << 16 | UInt32(bytes[index + 7]) << 8 | UInt32(bytes[index + 8])
            guard index + 9 + length <= bytes.count else { break }
            frames.append((bytes[index + 3], bytes[index + 4], stream & 0x7fff_ffff, Array(bytes[index + 9 ..< index + 9 + length])))
            index += 9 + length
        }
        return frames
    }

    /// The error code of the first GOAWAY in `bytes`.
    static func goAwayCode(in bytes: [UInt8]) -> UInt32? {
        guard let frame = parse(bytes).first(where: { $0.type == goAway }), frame.payload.count >= 8 else { return nil }
        let p = frame.payload
        return UInt32(p[4]) << 24 | UInt32(p[5]) << 16 | UInt32(p[6]) << 8 | UInt32(p[7])
    }
}
