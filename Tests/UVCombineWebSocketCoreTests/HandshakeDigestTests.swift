import HTTPTypes
import Testing
import UVCombineHTTPCore
@testable import UVCombineWebSocketCore

/// The handshake's own SHA-1 and base64 against published vectors
/// (FIPS 180-4's examples, RFC 4648 section 10).
@Suite("SHA-1 and base64")
struct HandshakeDigestTests {
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] }, as: UTF8.self)
    }

    @Test("SHA-1 of FIPS 180-4's messages", arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
    ])
    func sha1(message: String, digest: String) {
        #expect(Self.hex(SHA1.digest(Array(message.utf8))) == digest)
    }

    @Test("SHA-1 across block boundaries: a million a's")
    func sha1Long() {
        #expect(Self.hex(SHA1.digest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)))
            == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test("SHA-1 of 55, 56 and 64 bytes (padding edges) differ and have 20 bytes", arguments: [55, 56, 63, 64, 65])
    func sha1Edges(count: Int) {
        let digest = SHA1.digest([UInt8](repeating: 0x61, count: count))
        #expect(digest.count == 20)
        #expect(digest != SHA1.digest([UInt8](repeating: 0x61, count: count + 1)))
    }

    @Test("base64 of RFC 4648's vectors", arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ])
    func base64(input: String, output: String) {
        #expect(Base64.encoded(Array(input.utf8)) == output)
    }

    @Test("base64 uses + and / for the top values")
    func base64Alphabet() {
        #expect(Base64.encoded([0xFB, 0xFF, 0xBF]) == "+/+/")
    }

    @Test("an extra field with a control byte is refused, naming the byte and the field", arguments: [
        (UInt8(0x07), "control byte 0x07"), (UInt8(0x7F), "DEL"), (UInt8(0x1F), "control byte 0x1F"),
    ])
    func controlByteInExtraField(byte: UInt8, name: String) {
        // lenientValue keeps control bytes (it only blanks CR, LF and NUL).
        let fields = HTTPFields([HTTPField(name: HTTPField.Name("X-Token")!, lenientValue: [0x61, byte, 0x62])])
        #expect(throws: WebSocketHandshakeError("\(name) in value of header field \"X-Token\"")) {
            try WebSocketHandshake(key: "dGhlIHNhbXBsZSBub25jZQ==").requestHead(authority: "a", target: "/", extraFields: fields)
        }
    }
}
