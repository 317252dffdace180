/// RFC 7617 Basic credentials: `Basic base64(user-id ":" password)` in
/// UTF-8 (the `charset="UTF-8"` of section 2.1, which curl and browsers
/// use in practice).
///
/// HTTPCore forms its proxy's `Proxy-Authorization: Basic` line itself
/// (with FoundationEssentials' base64); this is the Foundation-free helper
/// for the session and `fetch` to share later.
///
/// Threading: pure functions; any thread.
///
/// ```swift
/// print(try BasicAuthentication.authorization(username: "Aladdin", password: "open sesame"))
/// // Prints: "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="
/// ```
public enum BasicAuthentication {
    /// Why credentials cannot be sent with Basic.
    public enum Problem: Error, Sendable, Hashable {
        /// The user-id holds a `:` (RFC 7617 section 2: it would end the
        /// user-id early).
        case colonInUsername
        /// The user-id or password holds a control character (RFC 7617
        /// section 2).
        case controlCharacter
    }

    /// The `Authorization` (or `Proxy-Authorization`) field value.
    ///
    /// - Throws: ``Problem/colonInUsername`` or ``Problem/controlCharacter``.
    public static func authorization(username: String, password: String) throws(Problem) -> String {
        guard !username.utf8.contains(UInt8(ascii: ":")) else { throw .colonInUsername }
        let isControl = { (byte: UInt8) in byte < 0x20 || byte == 0x7F }
        guard !username.utf8.contains(where: isControl), !password.utf8.contains(where: isControl) else {
            throw .controlCharacter
        }
        return "Basic " + Base64.encode(Array("\(username):\(password)".utf8))
    }

    /// The `realm` of the first Basic challenge in `challenges`, or `nil`
    /// when none is Basic (an empty string when it names no realm).
    public static func realm(in challenges: [AuthenticationChallenge]) -> String? {
        challenges.first { $0.hasScheme("Basic") }.map { $0.parameter("realm") ?? "" }
    }
}

/// Base64 (RFC 4648 section 4, with padding), without Foundation.
internal enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `bytes` in base64 with `=` padding.
    ///
    /// ```swift
    /// print(Base64.encode(Array("foob".utf8))) // Prints: "Zm9vYg=="
    /// ```
    internal static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let b0 = UInt32(bytes[index])
            let b1 = remaining > 1 ? UInt32(bytes[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(bytes[index + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(group >> 18 & 63)])
            out.append(alphabet[Int(group >> 12 & 63)])
            out.append(remaining > 1 ? alphabet[Int(group >> 6 & 63)] : UInt8(ascii: "="))
            out.append(remaining > 2 ? alphabet[Int(group & 63)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
