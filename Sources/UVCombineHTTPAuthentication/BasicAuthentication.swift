import UVCombineHTTPCore

/// RFC 7617 Basic credentials: `Basic base64(user-id ":" password)` in
/// UTF-8 (the `charset="UTF-8"` of section 2.1, which curl and browsers
/// use in practice).
///
/// The base64 is UVCombineHTTPCore's (one encoder for the proxy's
/// `Proxy-Authorization`, the WebSocket handshake and this); this is the
/// helper for the session and `fetch` to share later.
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
        return "Basic " + Base64.encoded(Array("\(username):\(password)".utf8))
    }

    /// The `realm` of the first Basic challenge in `challenges`, or `nil`
    /// when none is Basic (an empty string when it names no realm).
    public static func realm(in challenges: [AuthenticationChallenge]) -> String? {
        challenges.first { $0.hasScheme("Basic") }.map { $0.parameter("realm") ?? "" }
    }
}
