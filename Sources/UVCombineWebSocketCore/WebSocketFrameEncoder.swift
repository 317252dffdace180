/// Writes frames (RFC 6455, 5.2): the header with the shortest length
/// form, and for a client the payload masked with a fresh key.
///
/// Masking keys come from the system's CSPRNG
/// (`SystemRandomNumberGenerator`: `getrandom(2)` on Linux), as RFC 6455,
/// 10.3 asks: a key an attacker could predict would let a page make the
/// masked bytes look like another protocol to a proxy.
///
/// ```swift
/// var encoder = WebSocketFrameEncoder(masks: true)
/// var out: [UInt8] = []
/// encoder.encode(.text, payload: Array("hi".utf8), into: &out)
/// print(out.count) // Prints: "8" (2 header, 4 key, 2 payload)
/// ```
///
/// Threading: a value type, used by one thread at a time.
public struct WebSocketFrameEncoder: Sendable {
    /// Whether frames are masked (a client's are, a server's are not).
    public let masks: Bool
    private var random = SystemRandomNumberGenerator()

    /// An encoder that masks every frame (a client) or none (a server).
    public init(masks: Bool) {
        self.masks = masks
    }

    /// Appends one frame to `out`.
    ///
    /// - Parameters:
    ///   - fin: whether this is the message's last frame.
    ///   - rsv1: the permessage-deflate bit (first frame of a compressed message).
    ///   - maskingKey: a fixed key (tests); by default a random one.
    public mutating func encode(_ opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, fin: Bool = true,
                                 rsv1: Bool = false, maskingKey: UInt32? = nil, into out: inout [UInt8]) {
        var first = opcode.rawValue
        if fin { first |= 0x80 }
        if rsv1 { first |= 0x40 }
        out.append(first)
        let maskBit: UInt8 = masks ? 0x80 : 0
        let count = payload.count
        if count <= 125 {
            out.append(maskBit | UInt8(count))
        } else if count <= 0xFFFF {
            out.append(maskBit | 126)
            out.append(UInt8(truncatingIfNeeded: count >> 8))
            out.append(UInt8(truncatingIfNeeded: count))
        } else {
            out.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: UInt64(count) >> UInt64(shift)))
            }
        }
        guard masks else {
            out.appendRaw(payload)
            return
        }
        let key = maskingKey ?? random.next()
        let keyBytes = [UInt8(truncatingIfNeeded: key >> 24), UInt8(truncatingIfNeeded: key >> 16),
                        UInt8(truncatingIfNeeded: key >> 8), UInt8(truncatingIfNeeded: key)]
        out.append(contentsOf: keyBytes)
        let start = out.count
        out.appendRaw(payload)
        out.withUnsafeMutableBytes { buffer in
            Self.mask(UnsafeMutableRawBufferPointer(rebasing: buffer[start...]), key: keyBytes, offset: 0)
        }
    }

    /// Appends one frame with `payload`.
    public mutating func encode(_ opcode: WebSocketOpcode, payload: [UInt8], fin: Bool = true, rsv1: Bool = false,
                                 maskingKey: UInt32? = nil, into out: inout [UInt8]) {
        payload.withUnsafeBytes { encode(opcode, payload: $0, fin: fin, rsv1: rsv1, maskingKey: maskingKey, into: &out) }
    }

    /// XORs `bytes` with the four key bytes, starting at key position
    /// `offset` (0-3), eight bytes at a time where it can. Masking and
    /// unmasking are the same operation.
    public static func mask(_ bytes: UnsafeMutableRawBufferPointer, key: [UInt8], offset: Int) {
        let count = bytes.count
        guard count > 0, let base = bytes.baseAddress else { return }
        var index = 0
        // Byte by byte until the key lines up at position 0 again.
        while index < count && (offset + index) & 3 != 0 {
            base.storeBytes(of: base.load(fromByteOffset: index, as: UInt8.self) ^ key[(offset + index) & 3],
                            toByteOffset: index, as: UInt8.self)
            index += 1
        }
        var word: UInt64 = 0
        withUnsafeMutableBytes(of: &word) { raw in
            for position in 0..<8 { raw[position] = key[position & 3] }
        }
        while index + 8 <= count {
            let value = base.loadUnaligned(fromByteOffset: index, as: UInt64.self) ^ word
            base.storeBytes(of: value, toByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < count {
            base.storeBytes(of: base.load(fromByteOffset: index, as: UInt8.self) ^ key[(offset + index) & 3],
                            toByteOffset: index, as: UInt8.self)
            index += 1
        }
    }
}
