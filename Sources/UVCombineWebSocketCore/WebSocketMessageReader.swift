/// Turns received bytes into messages and control frames: the frame
/// decoder, then the rules that need context (RFC 6455, 5.4 and 8.1;
/// RFC 7692, 6):
///
/// | input | error |
/// | --- | --- |
/// | a continuation frame outside a fragmented message | 1002 |
/// | a text or binary frame inside a fragmented message | 1002 |
/// | a text message that is not UTF-8 (checked frame by frame, so a bad byte fails at once) | 1007 |
/// | a compressed message that is not DEFLATE | 1007 |
/// | a message (after inflating) longer than ``maximumMessageSize`` | 1009 |
/// | a close frame with a one-byte payload or a code that may not be sent | 1002 |
/// | a close reason that is not UTF-8 | 1007 |
///
/// Control frames may arrive between a message's fragments; they are
/// returned at once.
///
/// ```swift
/// var reader = WebSocketMessageReader(maximumMessageSize: 1 << 20)
/// reader.append([0x81, 0x02, 0x68, 0x69])
/// if case .message(.text, let bytes)? = try reader.next() { print(String(decoding: bytes, as: UTF8.self)) } // hi
/// ```
///
/// Threading: a value type, used by one thread at a time.
public struct WebSocketMessageReader {
    /// What arrived.
    ///
    /// ```swift
    /// switch try reader.next() {
    /// case .message(.text, let bytes)?: print(String(decoding: bytes, as: UTF8.self))
    /// case .ping(let payload)?: print("ping", payload.count)
    /// default: break
    /// }
    /// ```
    public enum Event: Equatable {
        /// A whole message: `.text` (valid UTF-8) or `.binary`.
        case message(WebSocketOpcode, [UInt8])
        /// A ping and its payload (the task answers with a pong).
        case ping([UInt8])
        /// A pong and its payload.
        case pong([UInt8])
        /// The peer's close frame.
        case close(WebSocketCloseFrame)
    }

    private var decoder: WebSocketFrameDecoder
    /// The message being assembled, if a first frame without FIN came.
    private var messageOpcode: WebSocketOpcode?
    private var messageIsCompressed = false
    private var message: [UInt8] = []
    private var validator = UTF8Validator()
    private var inflater: DeflateDecompressor?

    /// The longest message accepted, after inflating.
    public var maximumMessageSize: Int {
        didSet { decoder.maximumPayloadLength = maximumMessageSize }
    }

    /// A reader of a server's frames (unmasked), or of a client's
    /// (`expectsMasked`: for test servers).
    public init(maximumMessageSize: Int, expectsMasked: Bool = false) {
        self.maximumMessageSize = maximumMessageSize
        decoder = WebSocketFrameDecoder(expectsMasked: expectsMasked, maximumPayloadLength: maximumMessageSize)
    }

    /// Accepts compressed messages (RSV1), inflating them.
    public mutating func enableCompression(_ parameters: PerMessageDeflate.Parameters) throws(WebSocketProtocolError) {
        inflater = try DeflateDecompressor(noContextTakeover: parameters.serverNoContextTakeover)
        decoder.allowsCompression = true
    }

    /// Bytes received and not consumed yet.
    public var bufferedByteCount: Int { decoder.bufferedByteCount }

    /// Adds received bytes.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        decoder.append(bytes)
    }

    /// Adds received bytes.
    public mutating func append(_ bytes: [UInt8]) {
        decoder.append(bytes)
    }

    /// The next message or control frame, or nil until more bytes arrive.
    public mutating func next() throws(WebSocketProtocolError) -> Event? {
        while let frame = try decoder.next() {
            if frame.opcode.isControl {
                let payload = decoder.payload(of: frame)
                switch frame.opcode {
                case .ping: return .ping(payload)
                case .pong: return .pong(payload)
                default: return .close(try WebSocketCloseFrame(parsing: payload))
                }
            }
            if frame.opcode == .continuation {
                guard messageOpcode != nil else {
                    throw WebSocketProtocolError(.protocolError, "a continuation frame outside a fragmented message")
                }
            } else {
                guard messageOpcode == nil else {
                    throw WebSocketProtocolError(.protocolError, "a \(frame.opcode) frame inside a fragmented message")
                }
                messageOpcode = frame.opcode
                messageIsCompressed = frame.rsv1
                message.removeAll(keepingCapacity: true)
                validator.reset()
            }
            try absorb(frame)
            if frame.fin, let opcode = messageOpcode {
                if messageIsCompressed {
                    let before = message.count
                    try inflater!.finishMessage(into: &message, limit: maximumMessageSize)
                    if opcode == .text { try check(message[before...]) }
                }
                if opcode == .text && !validator.isComplete {
                    throw WebSocketProtocolError(.invalidFramePayloadData, "a text message that ends inside a UTF-8 sequence")
                }
                messageOpcode = nil
                let whole = message
                message = []
                return .message(opcode, whole)
            }
        }
        return nil
    }

    /// Adds a data frame's payload to the message.
    private mutating func absorb(_ frame: WebSocketFrameDecoder.Frame) throws(WebSocketProtocolError) {
        if messageIsCompressed {
            let before = message.count
            var failure: WebSocketProtocolError?
            var inflated = message
            message = []
            let inflater = inflater!
            let limit = maximumMessageSize
            decoder.withPayload(of: frame) { payload in
                do throws(WebSocketProtocolError) {
                    try inflater.inflate(payload, into: &inflated, limit: limit)
                } catch {
                    failure = error
                }
            }
            message = inflated
            if let failure { throw failure }
            if messageOpcode == .text { try check(message[before...]) }
            return
        }
        guard message.count + frame.payloadCount <= maximumMessageSize else {
            throw WebSocketProtocolError(.messageTooBig,
                                         "a message of more than \(maximumMessageSize) bytes (\(message.count + frame.payloadCount) so far)")
        }
        let isText = messageOpcode == .text
        // Moved out for the call, so the closure touches locals only.
        var message = self.message
        var validator = self.validator
        self.message = []
        let valid = decoder.withPayload(of: frame) { payload -> Bool in
            message.appendRaw(payload)
            return !isText || validator.validate(payload)
        }
        self.message = message
        self.validator = validator
        if !valid {
            throw WebSocketProtocolError(.invalidFramePayloadData, "a text message that is not UTF-8")
        }
    }

    private mutating func check(_ bytes: ArraySlice<UInt8>) throws(WebSocketProtocolError) {
        let valid = bytes.withUnsafeBytes { validator.validate($0) }
        if !valid { throw WebSocketProtocolError(.invalidFramePayloadData, "a text message that is not UTF-8") }
    }
}
