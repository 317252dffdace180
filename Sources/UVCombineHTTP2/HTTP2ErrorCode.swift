/// An HTTP/2 error code as RST_STREAM and GOAWAY carry it (RFC 9113,
/// section 7). Unknown codes are kept as they came (the RFC says to treat
/// them as `INTERNAL_ERROR`, but the number is worth showing).
///
/// Threading: a value type; `Sendable`.
///
/// ```swift
/// print(HTTP2ErrorCode.refusedStream) // Prints: "REFUSED_STREAM"
/// print(HTTP2ErrorCode(rawValue: 0x42)) // Prints: "0x42"
/// ```
public struct HTTP2ErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The 32-bit code on the wire.
    public let rawValue: UInt32

    /// Wraps a code from the wire.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// `NO_ERROR` (0x0): graceful.
    public static let noError = HTTP2ErrorCode(rawValue: 0x0)
    /// `PROTOCOL_ERROR` (0x1).
    public static let protocolError = HTTP2ErrorCode(rawValue: 0x1)
    /// `INTERNAL_ERROR` (0x2).
    public static let internalError = HTTP2ErrorCode(rawValue: 0x2)
    /// `FLOW_CONTROL_ERROR` (0x3).
    public static let flowControlError = HTTP2ErrorCode(rawValue: 0x3)
    /// `SETTINGS_TIMEOUT` (0x4).
    public static let settingsTimeout = HTTP2ErrorCode(rawValue: 0x4)
    /// `STREAM_CLOSED` (0x5).
    public static let streamClosed = HTTP2ErrorCode(rawValue: 0x5)
    /// `FRAME_SIZE_ERROR` (0x6).
    public static let frameSizeError = HTTP2ErrorCode(rawValue: 0x6)
    /// `REFUSED_STREAM` (0x7): the peer did not process the request; it
    /// may be retried.
    public static let refusedStream = HTTP2ErrorCode(rawValue: 0x7)
    /// `CANCEL` (0x8): what a cancelled task sends.
    public static let cancel = HTTP2ErrorCode(rawValue: 0x8)
    /// `COMPRESSION_ERROR` (0x9): HPACK state is broken.
    public static let compressionError = HTTP2ErrorCode(rawValue: 0x9)
    /// `CONNECT_ERROR` (0xa).
    public static let connectError = HTTP2ErrorCode(rawValue: 0xa)
    /// `ENHANCE_YOUR_CALM` (0xb): what we send to a flooding peer.
    public static let enhanceYourCalm = HTTP2ErrorCode(rawValue: 0xb)
    /// `INADEQUATE_SECURITY` (0xc).
    public static let inadequateSecurity = HTTP2ErrorCode(rawValue: 0xc)
    /// `HTTP_1_1_REQUIRED` (0xd): the server wants HTTP/1.1 for this request.
    public static let http11Required = HTTP2ErrorCode(rawValue: 0xd)

    /// The RFC's name, or the number in hex for an unknown code.
    public var description: String {
        switch rawValue {
        case 0x0: "NO_ERROR"
        case 0x1: "PROTOCOL_ERROR"
        case 0x2: "INTERNAL_ERROR"
        case 0x3: "FLOW_CONTROL_ERROR"
        case 0x4: "SETTINGS_TIMEOUT"
        case 0x5: "STREAM_CLOSED"
        case 0x6: "FRAME_SIZE_ERROR"
        case 0x7: "REFUSED_STREAM"
        case 0x8: "CANCEL"
        case 0x9: "COMPRESSION_ERROR"
        case 0xa: "CONNECT_ERROR"
        case 0xb: "ENHANCE_YOUR_CALM"
        case 0xc: "INADEQUATE_SECURITY"
        case 0xd: "HTTP_1_1_REQUIRED"
        default: "0x" + String(rawValue, radix: 16)
        }
    }
}
