/// Parses frames (RFC 6455, 5.2) out of the bytes received so far and
/// checks each header against the rules that need no message context:
///
/// | input | error |
/// | --- | --- |
/// | RSV1 without permessage-deflate, RSV1 on a continuation or control frame, RSV2 or RSV3 | 1002 |
/// | an opcode RFC 6455 does not define | 1002 |
/// | a masked frame from a server (an unmasked one from a client) | 1002 |
/// | a control frame with more than 125 bytes, or without FIN | 1002 |
/// | a 64-bit length with its top bit set | 1002 |
/// | a length that is not in its shortest form | 1002 |
/// | a payload longer than ``maximumPayloadLength`` | 1009 |
///
/// The payload is checked before it is buffered, so a frame announcing
/// more than the limit costs nothing. A masked payload is unmasked in
/// place.
///
/// ```swift
/// var decoder = WebSocketFrameDecoder(expectsMasked: false, maximumPayloadLength: 1 << 20)
/// decoder.append([0x81, 0x02, 0x68, 0x69])
/// let frame = try decoder.next()! // text, fin, 2 bytes
/// decoder.withPayload(of: frame) { print(Array($0)) } // Prints: "[104, 105]"
/// ```
///
/// Threading: a value type, used by one thread at a time.
public struct WebSocketFrameDecoder: Sendable {
    /// One parsed frame; its payload is read with ``withPayload(of:_:)``
    /// until the next ``append(_:)`` or ``next()``.
    ///
    /// ```swift
    /// if let frame = try decoder.next(), frame.opcode == .ping { print(decoder.payload(of: frame)) }
    /// ```
    public struct Frame: Sendable, Hashable {
        /// The FIN bit: the last frame of its message.
        public var fin: Bool
        /// RSV1: a compressed message's first frame (permessage-deflate).
        public var rsv1: Bool
        /// The frame's opcode.
        public var opcode: WebSocketOpcode
        /// Where the payload starts in the decoder's buffer.
        public var payloadStart: Int
        /// The payload's length in bytes.
        public var payloadCount: Int
    }

    /// Whether frames must be masked (a server decoding a client) or must
    /// not be (a client decoding a server).
    public let expectsMasked: Bool
    /// The longest payload accepted (1009 beyond).
    public var maximumPayloadLength: Int
    /// Whether RSV1 may be set on a data frame's first frame
    /// (permessage-deflate was negotiated).
    public var allowsCompression = false

    /// Received bytes; the ones before `start` are consumed.
    private var buffer: [UInt8] = []
    private var start = 0

    /// A decoder with an empty buffer; see ``expectsMasked`` and
    /// ``maximumPayloadLength``.
    public init(expectsMasked: Bool, maximumPayloadLength: Int) {
        self.expectsMasked = expectsMasked
        self.maximumPayloadLength = maximumPayloadLength
    }

    /// Bytes received and not consumed yet.
    public var bufferedByteCount: Int { buffer.count - start }

    /// Adds received bytes. Drops the consumed ones first, so the buffer
    /// holds at most one partial frame and what arrived after it.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compact()
        buffer.appendRaw(bytes)
    }

    /// Adds received bytes.
    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    private mutating func compact() {
        guard start > 0 else { return }
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
        } else {
            buffer.removeSubrange(0..<start)
        }
        start = 0
    }

    /// The next complete frame, or nil until more bytes arrive.
    public mutating func next() throws(WebSocketProtocolError) -> Frame? {
        let available = buffer.count - start
        guard available >= 2 else { return nil }
        let first = buffer[start]
        let second = buffer[start + 1]
        let fin = first & 0x80 != 0
        let rsv1 = first & 0x40 != 0
        guard first & 0x30 == 0 else {
            throw WebSocketProtocolError(.protocolError, "reserved bit RSV\(first & 0x20 != 0 ? 2 : 3) set")
        }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw WebSocketProtocolError(.protocolError, "unknown opcode 0x\(String(first & 0x0F, radix: 16))")
        }
        if rsv1 && (!allowsCompression || opcode == .continuation || opcode.isControl) {
            throw WebSocketProtocolError(.protocolError,
                                         allowsCompression ? "RSV1 set on a \(opcode) frame" : "reserved bit RSV1 set without an extension")
        }
        let masked = second & 0x80 != 0
        guard masked == expectsMasked else {
            throw WebSocketProtocolError(.protocolError, masked ? "a masked frame from the server" : "an unmasked frame from the client")
        }
        var headerLength = 2
        var length = UInt64(second & 0x7F)
        if opcode.isControl {
            guard fin else { throw WebSocketProtocolError(.protocolError, "a fragmented \(opcode) frame") }
            guard length <= 125 else {
                throw WebSocketProtocolError(.protocolError, "a \(opcode) frame longer than 125 bytes")
            }
        }
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(buffer[start + 2]) << 8 | UInt64(buffer[start + 3])
            headerLength = 4
            guard length >= 126 else { throw WebSocketProtocolError(.protocolError, "a 16-bit length below 126") }
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = 0
            for index in 0..<8 { length = length << 8 | UInt64(buffer[start + 2 + index]) }
            headerLength = 10
            guard length >> 63 == 0 else { throw WebSocketProtocolError(.protocolError, "a 64-bit length with its top bit set") }
            guard length > 0xFFFF else { throw WebSocketProtocolError(.protocolError, "a 64-bit length below 65536") }
        }
        guard length <= UInt64(maximumPayloadLength) else {
            throw WebSocketProtocolError(.messageTooBig, "a frame of \(length) bytes exceeds the limit of \(maximumPayloadLength)")
        }
        let maskStart = start + headerLength
        if masked { headerLength += 4 }
        let payloadCount = Int(length)
        guard available >= headerLength + payloadCount else {
            // Room for the whole frame at once, not by doubling.
            buffer.reserveCapacity(start + headerLength + payloadCount)
            return nil
        }
        let payloadStart = start + headerLength
        if masked {
            let key = Array(buffer[maskStart..<maskStart + 4])
            buffer.withUnsafeMutableBytes { raw in
                WebSocketFrameEncoder.mask(UnsafeMutableRawBufferPointer(rebasing: raw[payloadStart..<payloadStart + payloadCount]),
                                           key: key, offset: 0)
            }
        }
        start = payloadStart + payloadCount
        return Frame(fin: fin, rsv1: rsv1, opcode: opcode, payloadStart: payloadStart, payloadCount: payloadCount)
    }

    /// Runs `body` on `frame`'s payload (valid during the call only).
    public func withPayload<R>(of frame: Frame, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        buffer.withUnsafeBytes { raw in
            body(UnsafeRawBufferPointer(rebasing: raw[frame.payloadStart..<frame.payloadStart + frame.payloadCount]))
        }
    }

    /// `frame`'s payload as an array.
    public func payload(of frame: Frame) -> [UInt8] {
        Array(buffer[frame.payloadStart..<frame.payloadStart + frame.payloadCount])
    }
}
