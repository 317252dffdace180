/// A close frame's payload (RFC 6455, 5.5.1): nothing, or a two-byte
/// code then a UTF-8 reason, 125 bytes at most in all.
///
/// ```swift
/// let payload = WebSocketCloseFrame.payload(code: .normalClosure, reason: "bye")
/// let close = try WebSocketCloseFrame(parsing: payload)
/// print(close.code, close.reason) // Prints: "normalClosure (1000) bye"
/// ```
///
/// Threading: a value type; `Sendable`.
public struct WebSocketCloseFrame: Sendable, Hashable {
    /// The code, or ``WebSocketCloseCode/noStatusReceived`` for an empty payload.
    public var code: WebSocketCloseCode
    /// The reason's bytes (UTF-8, checked).
    public var reasonBytes: [UInt8]

    /// The reason as text.
    public var reason: String { String(decoding: reasonBytes, as: UTF8.self) }

    /// Parses a received close payload.
    ///
    /// - Throws: 1002 for a one-byte payload or a code that may not be
    ///   sent (``WebSocketCloseCode/isSendable``); 1007 for a reason that
    ///   is not UTF-8.
    public init(parsing payload: some Collection<UInt8>) throws(WebSocketProtocolError) {
        let bytes = Array(payload)
        switch bytes.count {
        case 0:
            code = .noStatusReceived
            reasonBytes = []
            return
        case 1:
            throw WebSocketProtocolError(.protocolError, "a close frame with a one-byte payload")
        default:
            break
        }
        let number = Int(bytes[0]) << 8 | Int(bytes[1])
        code = WebSocketCloseCode(rawValue: number)
        guard code.isSendable else {
            throw WebSocketProtocolError(.protocolError, "close code \(number) may not be sent")
        }
        reasonBytes = Array(bytes[2...])
        var validator = UTF8Validator()
        guard validator.validate(reasonBytes), validator.isComplete else {
            throw WebSocketProtocolError(.invalidFramePayloadData, "a close reason that is not UTF-8")
        }
    }

    /// The payload for `code` and `reason` (cut to 123 bytes at a
    /// character boundary). A code that may not be sent (1005, 1006, 0)
    /// gives an empty payload.
    public static func payload(code: WebSocketCloseCode, reason: some Collection<UInt8>) -> [UInt8] {
        guard code.isSendable else { return [] }
        var bytes: [UInt8] = [UInt8(truncatingIfNeeded: code.rawValue >> 8), UInt8(truncatingIfNeeded: code.rawValue)]
        var reason = Array(reason.prefix(123))
        // Drop a character cut in two by the limit.
        var validator = UTF8Validator()
        while !reason.isEmpty && !(validator.validate(reason) && validator.isComplete) {
            reason.removeLast()
            validator.reset()
        }
        bytes += reason
        return bytes
    }

    /// The payload for `code` and a text `reason`.
    public static func payload(code: WebSocketCloseCode, reason: String) -> [UInt8] {
        payload(code: code, reason: Array(reason.utf8))
    }
}
