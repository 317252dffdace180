/// SHA-1 (FIPS 180-4), for the one place RFC 6455 needs it: the
/// `Sec-WebSocket-Accept` value, base64(SHA-1(key + GUID)).
///
/// Why our own: this module imports no Foundation module and no OpenSSL,
/// so the fuzzers and C hosts link neither. SHA-1 is not used here for
/// security (RFC 6455, 10.8: the accept value only proves the server read
/// the handshake); inputs are about 60 bytes, so speed does not matter.
///
/// ```swift
/// let digest = SHA1.digest(Array("abc".utf8))
/// print(digest.count) // Prints: "20"
/// ```
///
/// Threading: a stateless namespace; call it from any thread.
package enum SHA1 {
    /// The 20-byte digest of `message`.
    package static func digest(_ message: [UInt8]) -> [UInt8] {
        var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
        var padded = message
        padded.append(0x80)
        while padded.count % 64 != 56 { padded.append(0) }
        let bitLength = UInt64(message.count) &* 8
        for shift in stride(from: 56, through: 0, by: -8) { padded.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }

        var words = [UInt32](repeating: 0, count: 80)
        for blockStart in stride(from: 0, to: padded.count, by: 64) {
            for index in 0..<16 {
                let at = blockStart + index * 4
                words[index] = UInt32(padded[at]) << 24 | UInt32(padded[at + 1]) << 16 | UInt32(padded[at + 2]) << 8 | UInt32(padded[at + 3])
            }
            for index in 16..<80 {
                words[index] = rotateLeft(words[index - 3] ^ words[index - 8] ^ words[index - 14] ^ words[index - 16], 1)
            }
            var (a, b, c, d, e) = state
            for index in 0..<80 {
                let mixed: UInt32
                let constant: UInt32
                switch index {
                case 0..<20: (mixed, constant) = ((b & c) | (~b & d), 0x5A82_7999)
                case 20..<40: (mixed, constant) = (b ^ c ^ d, 0x6ED9_EBA1)
                case 40..<60: (mixed, constant) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                default: (mixed, constant) = (b ^ c ^ d, 0xCA62_C1D6)
                }
                let next = rotateLeft(a, 5) &+ mixed &+ e &+ constant &+ words[index]
                (e, d, c, b, a) = (d, c, rotateLeft(b, 30), a, next)
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
        }
        var digest: [UInt8] = []
        digest.reserveCapacity(20)
        for word in [state.0, state.1, state.2, state.3, state.4] {
            for shift in stride(from: 24, through: 0, by: -8) { digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift))) }
        }
        return digest
    }

    @inline(__always)
    private static func rotateLeft(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value << count) | (value >> (32 - count))
    }
}
