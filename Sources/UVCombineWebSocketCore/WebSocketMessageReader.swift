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
/// Two ways out: ``next()`` hands each message over as a new array;
/// ``nextBorrowed()`` allocates nothing per message and lends the bytes
/// instead (``withPayload(_:)``), until the next ``append(_:)`` or
/// `next…` call. A message in one frame without compression is lent in
/// place, from the bytes received; a fragmented or compressed one from
/// the reader's message buffer, whose capacity is kept for the next
/// message (up to ``retainedMessageCapacity``).
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

    /// What arrived, its bytes lent by the reader: read them with
    /// ``withPayload(_:)`` before the next ``append(_:)``, ``next()`` or
    /// ``nextBorrowed()``.
    ///
    /// ```swift
    /// while let event = try reader.nextBorrowed() {
    ///     if case .message(.binary) = event { reader.withPayload { print($0.count) } }
    /// }
    /// ```
    public enum BorrowedEvent: Equatable, Sendable {
        /// A whole message: `.text` (valid UTF-8) or `.binary`; the payload is its bytes.
        case message(WebSocketOpcode)
        /// A ping; the payload is its payload (the task answers with a pong).
        case ping
        /// A pong; the payload is its payload.
        case pong
        /// The peer's close frame (no payload lent).
        case close(WebSocketCloseFrame)
    }

    /// Where the lent payload is.
    private enum Lent {
        case nothing
        /// A frame still in the decoder's buffer.
        case frame(WebSocketFrameDecoder.Frame)
        /// The message buffer.
        case message
    }

    /// The message buffer's capacity kept from one message to the next:
    /// messages up to this size (after inflating) reuse it, longer ones
    /// release it when the next message starts, so one large message does
    /// not pin its memory.
    public static let retainedMessageCapacity = 64 * 1024

    private var decoder: WebSocketFrameDecoder
    /// The message being assembled, if a first frame without FIN came.
    private var messageOpcode: WebSocketOpcode?
    private var messageIsCompressed = false
    private var message: [UInt8] = []
    private var validator = UTF8Validator()
    private var inflater: DeflateDecompressor?
    private var lent = Lent.nothing

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

    /// Adds received bytes (ending the loan of the last payload).
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        lent = .nothing
        decoder.append(bytes)
    }

    /// Adds received bytes (ending the loan of the last payload).
    public mutating func append(_ bytes: [UInt8]) {
        lent = .nothing
        decoder.append(bytes)
    }

    /// The next message or control frame, or nil until more bytes arrive;
    /// the message's bytes in an array of its own.
    public mutating func next() throws(WebSocketProtocolError) -> Event? {
        guard let event = try nextBorrowed() else { return nil }
        switch event {
        case .message(let opcode): return .message(opcode, takeLent())
        case .ping: return .ping(takeLent())
        case .pong: return .pong(takeLent())
        case .close(let frame): return .close(frame)
        }
    }

    /// The next message or control frame, or nil until more bytes arrive,
    /// with its bytes lent (``withPayload(_:)``): no allocation per message
    /// once the buffers have grown to the traffic (a close frame's reason
    /// is the exception: ``WebSocketCloseFrame`` owns it).
    ///
    /// ```swift
    /// while let event = try reader.nextBorrowed() {
    ///     if case .message(.text) = event { reader.withPayload { print(String(decoding: $0, as: UTF8.self)) } }
    /// }
    /// ```
    public mutating func nextBorrowed() throws(WebSocketProtocolError) -> BorrowedEvent? {
        lent = .nothing
        while let frame = try decoder.next() {
            if frame.opcode.isControl {
                switch frame.opcode {
                case .ping:
                    lent = .frame(frame)
                    return .ping
                case .pong:
                    lent = .frame(frame)
                    return .pong
                default:
                    return .close(try WebSocketCloseFrame(parsing: decoder.payload(of: frame)))
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
                if frame.fin && !frame.rsv1 {
                    // A whole message in one frame (the decoder held it to
                    // the size limit): lent where it was received.
                    if frame.opcode == .text { try validateWhole(frame) }
                    lent = .frame(frame)
                    return .message(frame.opcode)
                }
                messageOpcode = frame.opcode
                messageIsCompressed = frame.rsv1
                if message.capacity > Self.retainedMessageCapacity {
                    message = []
                } else {
                    message.removeAll(keepingCapacity: true)
                }
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
                lent = .message
                return .message(opcode)
            }
        }
        return nil
    }

    /// Runs `body` on the payload of the event ``nextBorrowed()`` returned
    /// last (empty for a close frame, or when there was none). The bytes
    /// are valid during the call only, and only until the reader changes.
    ///
    /// ```swift
    /// let count = reader.withPayload { $0.count }
    /// ```
    public func withPayload<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        switch lent {
        case .frame(let frame): return decoder.withPayload(of: frame, body)
        case .message: return message.withUnsafeBytes(body)
        case .nothing: return body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }

    /// The lent payload as an array of its own: the message buffer itself
    /// when the message was assembled there (no copy), else a copy.
    private mutating func takeLent() -> [UInt8] {
        if case .message = lent {
            lent = .nothing
            let whole = message
            message = []
            return whole
        }
        return withPayload { bytes in
            var copy: [UInt8] = []
            copy.appendRaw(bytes)
            return copy
        }
    }

    /// Validates a one-frame text message where it lies.
    private func validateWhole(_ frame: WebSocketFrameDecoder.Frame) throws(WebSocketProtocolError) {
        var validator = UTF8Validator()
        let valid = decoder.withPayload(of: frame) { validator.validate($0) }
        if !valid {
            throw WebSocketProtocolError(.invalidFramePayloadData, "a text message that is not UTF-8")
        }
        if !validator.isComplete {
            throw WebSocketProtocolError(.invalidFramePayloadData, "a text message that ends inside a UTF-8 sequence")
        }
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
