/// Base64 encoding (RFC 4648, section 4, with padding), for the
/// handshake's `Sec-WebSocket-Key` and `Sec-WebSocket-Accept`.
///
/// Why our own: this module imports no Foundation module (whose
/// `Data.base64EncodedString()` the handshake used before).
///
/// ```swift
/// print(Base64.encode(Array("hi".utf8))) // Prints: "aGk="
/// ```
///
/// Threading: a stateless namespace; call it from any thread.
package enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `bytes` in base64 with `=` padding.
    package static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let first = UInt32(bytes[index]) << 16
            let second = remaining > 1 ? UInt32(bytes[index + 1]) << 8 : 0
            let third = remaining > 2 ? UInt32(bytes[index + 2]) : 0
            let group = first | second | third
            output.append(alphabet[Int(group >> 18 & 0x3F)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
            output.append(remaining > 1 ? alphabet[Int(group >> 6 & 0x3F)] : UInt8(ascii: "="))
            output.append(remaining > 2 ? alphabet[Int(group & 0x3F)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }
}
