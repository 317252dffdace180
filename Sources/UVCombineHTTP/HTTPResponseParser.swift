#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HTTPTypes

/// An incremental HTTP/1.1 response parser: a pure state machine fed byte
/// chunks of any size, returning one event at a time.
///
/// The owner reads into one reused buffer and hands each chunk to
/// ``next(_:)`` until it answers ``Event/needMoreData``. Body events are
/// slices of the chunk itself (no copy); a head split across chunks is
/// gathered in one internal buffer that keeps its capacity from response
/// to response.
///
/// ```swift
/// var parser = HTTPResponseParser()
/// parser.expectResponse(to: .get)
/// let bytes = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi".utf8)
/// bytes.withUnsafeBytes { chunk in
///     var rest = chunk
///     loop: while true {
///         let (event, consumed) = try! parser.next(rest)
///         rest = UnsafeRawBufferPointer(rebasing: rest[consumed...])
///         switch event {
///         case .head(let response): print(response.status.code)           // Prints: "200"
///         case .body(let slice): print(String(decoding: slice, as: UTF8.self)) // Prints: "hi"
///         case .end(let keepAlive): print(keepAlive)                        // Prints: "true"
///         case .needMoreData: break loop
///         }
///     }
/// }
/// ```
///
/// ## States
///
/// - `idle`: no response expected. ``expectResponse(to:requestClosesConnection:)``
///   moves to `head`. Bytes arriving here are an error (a server may not
///   send anything unasked).
/// - `head`: gathering a status line and field lines up to the empty line.
///   An interim 1xx head (100 Continue, 103 Early Hints) is skipped and
///   `head` starts again; 101 is an error (we never ask to upgrade). The
///   final head emits ``Event/head(_:)`` and picks the body framing
///   (RFC 9112 section 6.3): none for a HEAD request and for 204 and 304,
///   `chunked` for `Transfer-Encoding: chunked`, `fixedBody` for
///   `Content-Length`, else `closeDelimited`.
/// - `fixedBody`: `remaining` body bytes to go; then `complete`.
/// - `chunkSize` → `chunkSizeWhitespace` / `chunkExtension` → `chunkSizeLF`:
///   one chunk-size line; size 0 moves to `trailers`, else `chunkData`.
/// - `chunkData` → `chunkDataCR` → `chunkDataLF`: the chunk's bytes and
///   the CRLF after them; then `chunkSize` again.
/// - `trailers`: trailer field lines up to the empty line (checked and
///   dropped); then `complete`.
/// - `closeDelimited`: body bytes until ``endOfInput(isAuthenticated:)``.
/// - `complete`: the response is over; the next call returns
///   ``Event/end(keepAlive:)`` and moves to `idle`.
/// - `failed`: an error was thrown; the connection must be closed. Any
///   further call traps.
///
/// ## Errors
///
/// Every malformed input throws a ``UVURLError`` with code
/// `.badServerResponse` and a `detail` naming the rule, for example
/// `"conflicting Content-Length values"`, `"whitespace before the first
/// header field"`, `"missing CRLF after chunk data"`. A body longer than
/// ``Configuration/maximumBodyLength`` throws `.dataLengthExceedsMaximum`;
/// end of input before the response is complete throws
/// `.networkConnectionLost` (`"truncated body ..."`).
///
/// Threading: a value type with no shared state; use each parser from one
/// thread at a time (the loop's).
@_spi(HTTPCore) public struct HTTPResponseParser: Sendable {
    /// Limits that protect the client from a hostile or broken server.
    ///
    /// ```swift
    /// var configuration = HTTPResponseParser.Configuration()
    /// configuration.maximumBodyLength = 10 * 1024 * 1024
    /// var parser = HTTPResponseParser(configuration: configuration)
    /// ```
    public struct Configuration: Sendable, Equatable {
        /// The most bytes a head (status line, field lines and the final
        /// CRLF) may take; also the limit for a chunked trailer section.
        /// Default 64 KiB.
        public var maximumHeaderBytes: Int = 64 * 1024
        /// The most field lines a head (or trailer section) may have.
        /// Default 100.
        public var maximumHeaderCount: Int = 100
        /// The longest status line, without its CRLF. Default 8 KiB.
        public var maximumStatusLineLength: Int = 8 * 1024
        /// The longest chunk-size line (size and extensions), without its
        /// CRLF. Default 4 KiB.
        public var maximumChunkLineLength: Int = 4 * 1024
        /// The largest body accepted, or `nil` for no limit. A larger body
        /// fails with `.dataLengthExceedsMaximum` as soon as it is known
        /// to be too large (at the head for `Content-Length`).
        public var maximumBodyLength: Int? = nil

        /// The defaults above.
        ///
        /// ```swift
        /// var configuration = HTTPResponseParser.Configuration()
        /// configuration.maximumBodyLength = 10 * 1024 * 1024
        /// ```
        public init() {}
    }

    /// What the parser found in the bytes it was given.
    ///
    /// ```swift
    /// let (event, consumed) = try parser.next(chunk)
    /// if case .body(let slice) = event { body.append(contentsOf: slice) } // copy: it is the chunk's memory
    /// ```
    public enum Event {
        /// The final response head (interim 1xx heads are skipped).
        case head(HTTPResponse)
        /// A run of body bytes: a slice of the chunk passed to ``next(_:)``,
        /// valid as long as that chunk's memory is. Copy it to keep it.
        case body(UnsafeRawBufferPointer)
        /// The response is complete. `keepAlive` says whether the
        /// connection may carry another request: false when the response
        /// or the request said `Connection: close`, for HTTP/1.0 without
        /// `Connection: keep-alive`, and for close-delimited bodies.
        case end(keepAlive: Bool)
        /// Every byte given was consumed; feed the next chunk.
        case needMoreData
    }

    /// The parser's state; see the type's documentation for each one.
    internal enum Phase: UInt8 {
        case idle, head, fixedBody
        case chunkSize, chunkSizeWhitespace, chunkExtension, chunkSizeLF
        case chunkData, chunkDataCR, chunkDataLF
        case trailers, closeDelimited, complete, failed
    }

    /// How the body of the current response is delimited.
    internal enum Framing: Equatable {
        case none
        case length(Int)
        case chunked
        case closeDelimited
    }

    /// The limits in force.
    public let configuration: Configuration

    internal private(set) var phase: Phase = .idle
    /// Whether the request was HEAD (its response has no body).
    private var requestIsHead = false
    /// Whether the request said `Connection: close`.
    private var requestCloses = false
    /// Whether any byte of the current response arrived.
    public private(set) var hasReceivedResponseBytes = false
    /// Whether the connection may be reused once the current response ends.
    private var keepAlive = true

    /// Body bytes still expected in `fixedBody` and `chunkData`.
    private var remaining = 0
    /// Body bytes delivered so far, for `maximumBodyLength`.
    private var bodyLength = 0
    /// The chunk size being read and the length of its line.
    private var chunkSize = 0
    private var chunkLineLength = 0
    private var chunkDigits = 0

    /// The scan of a head or trailer section in progress.
    private var sectionBytes = 0
    private var lineLength = 0
    private var lineCount = 0
    private var lastWasCR = false
    /// Head bytes gathered across chunks; keeps its capacity.
    private var headBuffer: [UInt8] = []
    /// The last final head parsed from one chunk, byte for byte, and what
    /// it parsed to (for `cachedHeadIsForHEAD`): a keep-alive server sends
    /// the same head again and again (nginx's changes once a second, with
    /// its `Date`), and a head equal to it byte for byte parses to the
    /// same response, so it is reused instead of parsed (no fields built,
    /// no allocation). Empty when nothing is cached.
    private var cachedHead: [UInt8] = []
    private var cachedParsedHead: ParsedHead?
    private var cachedHeadIsForHEAD = false
    /// The body length the current response's head announced
    /// (`Content-Length`), once its head was parsed; nil for other framings.
    internal private(set) var announcedBodyLength: Int?
    /// Whether the current response's head has a `Content-Encoding` field,
    /// once its head was parsed: without one there is nothing to decode,
    /// and the session need not look through the fields.
    internal private(set) var hasContentEncoding = false

    /// Creates an idle parser.
    ///
    /// ```swift
    /// var parser = HTTPResponseParser(configuration: .init())
    /// ```
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        headBuffer.reserveCapacity(1024)
    }

    /// Body bytes still to come in a `Content-Length` body (nothing else
    /// may arrive before them), or nil in any other state.
    internal var remainingFixedBodyLength: Int? {
        phase == .fixedBody ? remaining : nil
    }

    /// Whether the parser is between responses.
    public var isIdle: Bool { phase == .idle }

    /// Prepares for the response to a request just written. Call once per
    /// request, while idle.
    ///
    /// - Parameters:
    ///   - method: the request's method; a HEAD response has no body.
    ///   - requestClosesConnection: whether the request said
    ///     `Connection: close` (``HTTPRequestWriter/Result/closesConnection``);
    ///     the response's `end` then reports `keepAlive: false`.
    public mutating func expectResponse(to method: HTTPRequest.Method, requestClosesConnection: Bool = false) {
        guard phase == .idle else {
            httpViolation("HTTPResponseParser.expectResponse: one response at a time (no pipelining), but the parser is in state \(phase)")
        }
        requestIsHead = method == .head
        requestCloses = requestClosesConnection
        hasReceivedResponseBytes = false
        bodyLength = 0
        beginSection()
        phase = .head
    }

    /// Parses from the start of `input` up to the next event.
    ///
    /// Returns the event and how many bytes of `input` it consumed; call
    /// again with the rest until the event is ``Event/needMoreData``.
    ///
    /// - Throws: ``UVURLError`` for a malformed response (the parser is
    ///   then `failed` and the connection must be closed).
    public mutating func next(_ input: UnsafeRawBufferPointer) throws(UVURLError) -> (event: Event, consumed: Int) {
        do {
            return try step(input)
        } catch {
            phase = .failed
            throw error
        }
    }

    /// Reports that the peer closed the connection (end of stream) while a
    /// response is expected.
    ///
    /// Returns ``Event/end(keepAlive:)`` (false) when that ends a
    /// close-delimited body, or when the response was already complete.
    ///
    /// - Parameter isAuthenticated: whether the end itself can be trusted:
    ///   true for plain TCP's end of file and for TLS's `close_notify`;
    ///   false for a TLS connection whose TCP stream ended without
    ///   `close_notify`. Such an end cannot end a close-delimited body:
    ///   anyone on the path can send a FIN, so the body may have been cut
    ///   (RFC 8446 section 6.1; curl with OpenSSL 3 fails the same way).
    /// - Throws: `.networkConnectionLost` when the response is incomplete:
    ///   `"connection closed before the response began"` (check
    ///   ``hasReceivedResponseBytes`` to decide on a retry),
    ///   `"connection closed inside the response head"`,
    ///   `"truncated body: connection closed before Content-Length bytes arrived"`,
    ///   `"truncated body: connection closed inside the chunked body"` or
    ///   `"truncated body: TLS connection closed without close_notify"`.
    ///
    /// ```swift
    /// // A close-delimited body, then TLS ended without close_notify:
    /// _ = try parser.endOfInput(isAuthenticated: false) // throws .networkConnectionLost
    /// ```
    public mutating func endOfInput(isAuthenticated: Bool = true) throws(UVURLError) -> Event {
        let error: UVURLError
        switch phase {
        case .closeDelimited where !isAuthenticated:
            error = UVURLError(.networkConnectionLost, detail: "truncated body: TLS connection closed without close_notify")
        case .closeDelimited, .complete:
            phase = .idle
            return .end(keepAlive: false)
        case .head:
            error = UVURLError(
                .networkConnectionLost,
                detail: hasReceivedResponseBytes
                    ? "connection closed inside the response head" : "connection closed before the response began"
            )
        case .fixedBody:
            error = UVURLError(.networkConnectionLost, detail: "truncated body: connection closed before Content-Length bytes arrived")
        case .chunkSize, .chunkSizeWhitespace, .chunkExtension, .chunkSizeLF, .chunkData, .chunkDataCR, .chunkDataLF, .trailers:
            error = UVURLError(.networkConnectionLost, detail: "truncated body: connection closed inside the chunked body")
        case .idle, .failed:
            httpViolation("HTTPResponseParser.endOfInput: only while a response is expected, but the parser is in state \(phase)")
        }
        phase = .failed
        throw error
    }

    // MARK: The state machine

    private mutating func step(_ input: UnsafeRawBufferPointer) throws(UVURLError) -> (event: Event, consumed: Int) {
        var offset = 0
        let count = input.count
        while true {
            switch phase {
            case .idle:
                if count == 0 { return (.needMoreData, 0) }
                throw .badResponse("unexpected bytes while no response is expected")

            case .failed:
                httpViolation("HTTPResponseParser.next: a parser that threw must not be used again (state failed)")

            case .head:
                if offset == count { return (.needMoreData, offset) }
                hasReceivedResponseBytes = true
                if let cached = reuseCachedHead(input, at: offset) {
                    offset += cachedHead.count
                    try begin(cached)
                    return (.head(cached.response), offset)
                }
                let start = offset
                guard let end = try scanSection(input, from: &offset, isTrailer: false) else {
                    headBuffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[start..<count]))
                    return (.needMoreData, count)
                }
                let parsed: ParsedHead
                if headBuffer.isEmpty {
                    let head = UnsafeRawBufferPointer(rebasing: input[start..<end])
                    parsed = try parseHead(head)
                    if !parsed.isInterim { cache(head, parsed) }
                } else {
                    headBuffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[start..<end]))
                    let result = headBuffer.withUnsafeBytes { bytes in
                        Result { () throws(UVURLError) in try parseHead(bytes) }
                    }
                    headBuffer.removeAll(keepingCapacity: true)
                    parsed = try result.get()
                }
                offset = end
                if parsed.isInterim {
                    beginSection()
                    continue
                }
                try begin(parsed)
                return (.head(parsed.response), offset)

            case .fixedBody, .chunkData:
                if offset == count { return (.needMoreData, offset) }
                let length = min(remaining, count - offset)
                remaining -= length
                if remaining == 0 { phase = phase == .fixedBody ? .complete : .chunkDataCR }
                return (.body(UnsafeRawBufferPointer(rebasing: input[offset..<offset + length])), offset + length)

            case .closeDelimited:
                if offset == count { return (.needMoreData, offset) }
                var length = count - offset
                if let maximum = configuration.maximumBodyLength, bodyLength + length > maximum {
                    // Deliver up to the limit first, so the events do not
                    // depend on how the bytes were split into chunks.
                    length = maximum - bodyLength
                    if length == 0 { throw Self.bodyTooLong(maximum) }
                }
                bodyLength += length
                return (.body(UnsafeRawBufferPointer(rebasing: input[offset..<offset + length])), offset + length)

            case .chunkSize, .chunkSizeWhitespace, .chunkExtension, .chunkSizeLF:
                if offset == count { return (.needMoreData, offset) }
                try scanChunkLine(input, from: &offset)

            case .chunkDataCR:
                if offset == count { return (.needMoreData, offset) }
                guard input[offset] == 0x0D else { throw .badResponse("missing CRLF after chunk data") }
                offset += 1
                phase = .chunkDataLF

            case .chunkDataLF:
                if offset == count { return (.needMoreData, offset) }
                guard input[offset] == 0x0A else { throw .badResponse("missing CRLF after chunk data") }
                offset += 1
                beginChunkLine()

            case .trailers:
                if offset == count { return (.needMoreData, offset) }
                let start = offset
                guard let end = try scanSection(input, from: &offset, isTrailer: true) else {
                    headBuffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[start..<count]))
                    return (.needMoreData, count)
                }
                if headBuffer.isEmpty {
                    try Self.checkTrailers(UnsafeRawBufferPointer(rebasing: input[start..<end]))
                } else {
                    headBuffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[start..<end]))
                    let result = headBuffer.withUnsafeBytes { bytes in
                        Result { () throws(UVURLError) in try Self.checkTrailers(bytes) }
                    }
                    headBuffer.removeAll(keepingCapacity: true)
                    try result.get()
                }
                offset = end
                phase = .complete

            case .complete:
                phase = .idle
                return (.end(keepAlive: keepAlive), offset)
            }
        }
    }

    /// The cached head's parse when `input` at `offset` starts with the
    /// cached head's bytes (so its head is exactly those bytes: the cached
    /// head has its only empty line at its end), in a fresh section, for a
    /// request of the same kind (HEAD or not: that decides the framing).
    /// Limits need no new check: the same bytes passed them.
    @inline(__always)
    private func reuseCachedHead(_ input: UnsafeRawBufferPointer, at offset: Int) -> ParsedHead? {
        let length = cachedHead.count
        guard length > 0, sectionBytes == 0, headBuffer.isEmpty, requestIsHead == cachedHeadIsForHEAD,
              input.count - offset >= length, let cached = cachedParsedHead else { return nil }
        let equal = cachedHead.withUnsafeBytes { head in
            memcmp(input.baseAddress! + offset, head.baseAddress!, length) == 0
        }
        return equal ? cached : nil
    }

    /// Remembers a final head parsed from one chunk (up to 4 KiB of it).
    private mutating func cache(_ head: UnsafeRawBufferPointer, _ parsed: ParsedHead) {
        guard head.count <= 4096 else {
            cachedHead.removeAll(keepingCapacity: true)
            cachedParsedHead = nil
            return
        }
        cachedHead.removeAll(keepingCapacity: true)
        cachedHead.append(contentsOf: head)
        cachedParsedHead = parsed
        cachedHeadIsForHEAD = requestIsHead
    }

    /// Sets up the body state for a final head.
    private mutating func begin(_ head: ParsedHead) throws(UVURLError) {
        keepAlive = head.keepAlive && !requestCloses
        announcedBodyLength = nil
        hasContentEncoding = head.hasContentEncoding
        switch head.framing {
        case .none:
            phase = .complete
        case .length(let length):
            if let maximum = configuration.maximumBodyLength, length > maximum {
                throw UVURLError(
                    .dataLengthExceedsMaximum,
                    detail: "Content-Length \(length) exceeds the maximum of \(maximum) bytes"
                )
            }
            remaining = length
            bodyLength = length
            announcedBodyLength = length
            phase = length == 0 ? .complete : .fixedBody
        case .chunked:
            beginChunkLine()
        case .closeDelimited:
            keepAlive = false
            phase = .closeDelimited
        }
    }

    /// Counts a chunk's bytes against `maximumBodyLength`. Each chunk size
    /// fits an `Int`, but their sum may not: a total past `Int.max` is past
    /// any maximum, and without one it is refused as malformed (found by
    /// the ChunkedDecoderFuzzer: `1\r\na\r\n7fffffffffffffff\r\n` trapped).
    @inline(__always)
    private mutating func addBody(_ length: Int) throws(UVURLError) {
        let (total, overflowed) = bodyLength.addingReportingOverflow(length)
        if let maximum = configuration.maximumBodyLength, overflowed || total > maximum {
            throw Self.bodyTooLong(maximum)
        }
        if overflowed { throw .badResponse("chunked body length overflows") }
        bodyLength = total
    }

    private static func bodyTooLong(_ maximum: Int) -> UVURLError {
        UVURLError(.dataLengthExceedsMaximum, detail: "body exceeds the maximum of \(maximum) bytes")
    }

    // MARK: Sections (head and trailers)

    private mutating func beginSection() {
        sectionBytes = 0
        lineLength = 0
        lineCount = 0
        lastWasCR = false
    }

    /// Scans for the empty line that ends a head or trailer section,
    /// checking line endings and limits as it goes. Returns the offset just
    /// past the section, or `nil` when `input` ends first (`offset` is then
    /// `input.count`).
    private mutating func scanSection(
        _ input: UnsafeRawBufferPointer,
        from offset: inout Int,
        isTrailer: Bool
    ) throws(UVURLError) -> Int? {
        let count = input.count
        guard offset < count, let base = input.baseAddress else { return nil }
        let maximumBytes = configuration.maximumHeaderBytes
        let maximumStatusLine = configuration.maximumStatusLineLength
        while offset < count {
            if !lastWasCR {
                // The run of ordinary bytes up to the next CR or LF.
                let start = offset
                while offset < count {
                    let byte = base.load(fromByteOffset: offset, as: UInt8.self)
                    if byte == 0x0D || byte == 0x0A { break }
                    offset += 1
                }
                let run = offset - start
                lineLength += run
                sectionBytes += run
                try checkSectionLimits(isTrailer: isTrailer, maximumBytes: maximumBytes, maximumStatusLine: maximumStatusLine)
                if offset == count { return nil }
                let byte = base.load(fromByteOffset: offset, as: UInt8.self)
                offset += 1
                sectionBytes += 1
                try checkSectionLimits(isTrailer: isTrailer, maximumBytes: maximumBytes, maximumStatusLine: maximumStatusLine)
                if byte == 0x0A { throw .badResponse("bare LF in header section") }
                lastWasCR = true
                continue
            }
            let byte = base.load(fromByteOffset: offset, as: UInt8.self)
            offset += 1
            sectionBytes += 1
            try checkSectionLimits(isTrailer: isTrailer, maximumBytes: maximumBytes, maximumStatusLine: maximumStatusLine)
            guard byte == 0x0A else { throw .badResponse("CR not followed by LF in header section") }
            lastWasCR = false
            if lineLength == 0 {
                if lineCount == 0 && !isTrailer {
                    throw .badResponse("empty line before the status line")
                }
                return offset
            }
            lineCount += 1
            lineLength = 0
            // The status line is line 1 of a head; trailers have none.
            let fields = isTrailer ? lineCount : lineCount - 1
            if fields > configuration.maximumHeaderCount {
                throw .badResponse("more than \(configuration.maximumHeaderCount) header fields")
            }
        }
        return nil
    }

    /// Throws when the section or the status line grew past its limit,
    /// naming the limit a byte-by-byte scan would have crossed first.
    @inline(__always)
    private func checkSectionLimits(isTrailer: Bool, maximumBytes: Int, maximumStatusLine: Int) throws(UVURLError) {
        let statusLineTooLong = lineCount == 0 && !isTrailer && lineLength > maximumStatusLine
        if statusLineTooLong && maximumStatusLine < maximumBytes {
            throw .badResponse("status line exceeds \(maximumStatusLine) bytes")
        }
        if sectionBytes > maximumBytes {
            throw .badResponse(isTrailer
                ? "trailer section exceeds \(maximumBytes) bytes" : "header section exceeds \(maximumBytes) bytes")
        }
        if statusLineTooLong {
            throw .badResponse("status line exceeds \(maximumStatusLine) bytes")
        }
    }

    // MARK: Chunked framing

    private mutating func beginChunkLine() {
        chunkSize = 0
        chunkDigits = 0
        chunkLineLength = 0
        phase = .chunkSize
    }

    /// Scans a chunk-size line: `1*HEXDIG *( BWS ";" ext ) CRLF`.
    private mutating func scanChunkLine(_ input: UnsafeRawBufferPointer, from offset: inout Int) throws(UVURLError) {
        let count = input.count
        while offset < count {
            let byte = input[offset]
            offset += 1
            if phase == .chunkSizeLF {
                guard byte == 0x0A else { throw .badResponse("CR not followed by LF in chunk-size line") }
                try endChunkLine()
                return
            }
            if byte == 0x0D {
                if chunkDigits == 0 || phase == .chunkSizeWhitespace {
                    throw .badResponse("malformed chunk size")
                }
                phase = .chunkSizeLF
                continue
            }
            if byte == 0x0A { throw .badResponse("bare LF in chunk-size line") }
            chunkLineLength += 1
            if chunkLineLength > configuration.maximumChunkLineLength {
                throw .badResponse("chunk-size line exceeds \(configuration.maximumChunkLineLength) bytes")
            }
            switch phase {
            case .chunkSize:
                if let digit = Self.hexValue(byte) {
                    if chunkSize > (Int.max - digit) >> 4 { throw .badResponse("chunk size overflows") }
                    chunkSize = chunkSize << 4 | digit
                    chunkDigits += 1
                } else if chunkDigits > 0 && byte == UInt8(ascii: ";") {
                    phase = .chunkExtension
                } else if chunkDigits > 0 && HTTPTokenList.isOWS(byte) {
                    phase = .chunkSizeWhitespace
                } else {
                    throw .badResponse("malformed chunk size")
                }
            case .chunkSizeWhitespace:
                if byte == UInt8(ascii: ";") {
                    phase = .chunkExtension
                } else if !HTTPTokenList.isOWS(byte) {
                    throw .badResponse("malformed chunk size")
                }
            case .chunkExtension:
                if !HTTPRequestValidation.isFieldValueByte(byte) {
                    throw .badResponse("invalid byte in chunk extension")
                }
            default:
                httpViolation("HTTPResponseParser.scanChunkLine: only inside a chunk-size line, but the parser is in state \(phase)")
            }
        }
    }

    private mutating func endChunkLine() throws(UVURLError) {
        if chunkSize == 0 {
            beginSection()
            phase = .trailers
            return
        }
        try addBody(chunkSize)
        remaining = chunkSize
        phase = .chunkData
    }

    @inline(__always)
    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte &- UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte &- UInt8(ascii: "a") &+ 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte &- UInt8(ascii: "A") &+ 10)
        default: nil
        }
    }

    // MARK: Head parsing

    /// A parsed head and what it says about the body and the connection.
    internal struct ParsedHead {
        var response: HTTPResponse
        var isInterim: Bool
        var framing: Framing
        var keepAlive: Bool
        /// Whether a `Content-Encoding` field is present.
        var hasContentEncoding: Bool
    }

    /// Parses a complete head: status line, field lines, final CRLF. The
    /// scan already guaranteed CRLF line endings and the limits.
    private func parseHead(_ bytes: UnsafeRawBufferPointer) throws(UVURLError) -> ParsedHead {
        // Status line.
        var lineEnd = Self.indexOfCR(bytes, from: 0)
        let statusLine = UnsafeRawBufferPointer(rebasing: bytes[0..<lineEnd])
        let (isHTTP10, code, reason) = try Self.parseStatusLine(statusLine)

        if code == 101 {
            throw .badResponse("unexpected 101 Switching Protocols")
        }
        let isInterim = code < 200

        var fields = HTTPFields()
        if !isInterim { fields.reserveCapacity(lineCount - 1) }
        var contentLength: Int? = nil
        var sawTransferEncoding = false
        var transferCodings = 0
        var chunked = false
        var connectionClose = false
        var connectionKeepAlive = false
        var hasContentEncoding = false

        /// Reads one field's value for framing and adds the field.
        func interpret(_ nameBytes: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws(UVURLError) {
            switch Self.framingField(nameBytes) {
            case .contentLength:
                var newValue = contentLength
                var failure: UVURLError? = nil
                HTTPTokenList.forEachElement(value) { element in
                    switch HTTPTokenList.decimal(element) {
                    case .value(let length):
                        if let existing = newValue, existing != length {
                            failure = .badResponse("conflicting Content-Length values")
                            return false
                        }
                        newValue = length
                        return true
                    case .invalid:
                        failure = .badResponse("malformed Content-Length value")
                        return false
                    case .overflow:
                        failure = .badResponse("Content-Length value overflows")
                        return false
                    }
                }
                if let failure { throw failure }
                guard newValue != nil else { throw .badResponse("malformed Content-Length value") }
                contentLength = newValue
            case .transferEncoding:
                sawTransferEncoding = true
                HTTPTokenList.forEachElement(value) { element in
                    transferCodings += 1
                    chunked = HTTPTokenList.equalsIgnoringCase(element, "chunked")
                    return true
                }
            case .connection:
                if HTTPTokenList.contains(value, "close") { connectionClose = true }
                if HTTPTokenList.contains(value, "keep-alive") { connectionKeepAlive = true }
            case .contentEncoding:
                hasContentEncoding = true
            case .other:
                break
            }
            fields.append(Self.field(Self.fieldName(nameBytes), value))
        }

        var lineStart = lineEnd + 2
        // The value of a field folded over several lines (obs-fold), joined;
        // only a head with such a field fills it.
        var unfolded: [UInt8] = []
        while true {
            lineEnd = Self.indexOfCR(bytes, from: lineStart)
            if lineEnd == lineStart { break }
            let line = UnsafeRawBufferPointer(rebasing: bytes[lineStart..<lineEnd])
            lineStart = lineEnd + 2
            // A line that starts with whitespace right after the status
            // line continues nothing (RFC 9112 section 2.2 allows refusing
            // it); after a field line, the unfolding below consumed it.
            if HTTPTokenList.isOWS(line[0]) {
                throw .badResponse("whitespace before the first header field")
            }
            let (nameBytes, value) = try Self.splitFieldLine(line)
            // RFC 9112 section 5.2: a user agent replaces each obs-fold in
            // a response with SP before interpreting the field value.
            // (The line after a field line always exists: at worst it is
            // the empty line that ends the head.)
            let isFolded = HTTPTokenList.isOWS(bytes[lineStart])
            if isFolded {
                lineStart = try Self.unfold(bytes, value: value, from: lineStart, into: &unfolded)
            }
            if isInterim { continue }
            if isFolded {
                let result = unfolded.withUnsafeBytes { joined in
                    Result { () throws(UVURLError) in try interpret(nameBytes, joined) }
                }
                try result.get()
            } else {
                try interpret(nameBytes, value)
            }
        }

        let status = HTTPResponse.Status(code: code, reasonPhrase: reason)
        let response = HTTPResponse(status: status, headerFields: fields)
        if isInterim {
            return ParsedHead(response: response, isInterim: true, framing: .none, keepAlive: true,
                              hasContentEncoding: false)
        }

        if sawTransferEncoding {
            if contentLength != nil {
                throw .badResponse("both Content-Length and Transfer-Encoding")
            }
            if !(chunked && transferCodings == 1) {
                throw .badResponse("unsupported Transfer-Encoding (only \"chunked\" is supported)")
            }
        }
        var keepAlive = isHTTP10 ? (connectionKeepAlive && !connectionClose) : !connectionClose
        // RFC 9112 section 6.1: Transfer-Encoding in HTTP/1.0 means the
        // framing cannot be trusted for another message.
        if isHTTP10 && sawTransferEncoding { keepAlive = false }

        let framing: Framing
        if requestIsHead || code == 204 || code == 304 {
            framing = .none
        } else if sawTransferEncoding {
            framing = .chunked
        } else if let contentLength {
            framing = .length(contentLength)
        } else {
            framing = .closeDelimited
        }
        return ParsedHead(response: response, isInterim: false, framing: framing, keepAlive: keepAlive,
                          hasContentEncoding: hasContentEncoding)
    }

    /// Parses `HTTP/1.x SP 3DIGIT [SP reason-phrase]`; only HTTP/1.1 and
    /// HTTP/1.0, exactly one space after the version, a status code from
    /// 100 to 999, and the reason phrase may be missing (with or without
    /// its space).
    private static func parseStatusLine(
        _ line: UnsafeRawBufferPointer
    ) throws(UVURLError) -> (isHTTP10: Bool, code: Int, reason: String) {
        @inline(__always) func isDigit(_ byte: UInt8) -> Bool {
            byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        }
        let count = line.count
        // "HTTP/" DIGIT "." DIGIT
        guard count >= 8, line[0] == UInt8(ascii: "H"), line[1] == UInt8(ascii: "T"),
            line[2] == UInt8(ascii: "T"), line[3] == UInt8(ascii: "P"), line[4] == UInt8(ascii: "/"),
            isDigit(line[5]), line[6] == UInt8(ascii: "."), isDigit(line[7])
        else {
            throw .badResponse("malformed status line")
        }
        guard line[5] == UInt8(ascii: "1"), line[7] == UInt8(ascii: "1") || line[7] == UInt8(ascii: "0") else {
            throw .badResponse("unsupported HTTP version")
        }
        guard count >= 9, line[8] == 0x20 else { throw .badResponse("malformed status line") }
        guard count >= 12, isDigit(line[9]), isDigit(line[10]), isDigit(line[11]) else {
            throw .badResponse("malformed status code")
        }
        let code = Int(line[9] &- 48) * 100 + Int(line[10] &- 48) * 10 + Int(line[11] &- 48)
        guard code >= 100 else { throw .badResponse("malformed status code") }
        var reason = ""
        if count > 12 {
            guard line[12] == 0x20 else { throw .badResponse("malformed status code") }
            let reasonBytes = UnsafeRawBufferPointer(rebasing: line[13...])
            for byte in reasonBytes where !HTTPRequestValidation.isFieldValueByte(byte) {
                throw .badResponse("invalid byte in reason phrase")
            }
            reason = String(decoding: reasonBytes, as: UTF8.self)
        }
        return (line[7] == UInt8(ascii: "0"), code, reason)
    }

    /// Splits `name ":" OWS value OWS`, checking both parts.
    private static func splitFieldLine(
        _ line: UnsafeRawBufferPointer
    ) throws(UVURLError) -> (name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        var colon = 0
        let count = line.count
        while colon < count && line[colon] != UInt8(ascii: ":") { colon += 1 }
        if colon == count { throw .badResponse("header field line without a colon") }
        if colon == 0 { throw .badResponse("empty header field name") }
        for index in 0..<colon where !HTTPRequestValidation.isTokenByte(line[index]) {
            // RFC 9112 section 5.1: no whitespace between name and colon.
            var rest = index
            while rest < colon && HTTPTokenList.isOWS(line[rest]) { rest += 1 }
            if rest == colon { throw .badResponse("whitespace between header field name and colon") }
            throw .badResponse("invalid byte in header field name")
        }
        var lower = colon + 1
        var upper = count
        while lower < upper && HTTPTokenList.isOWS(line[lower]) { lower += 1 }
        while upper > lower && HTTPTokenList.isOWS(line[upper - 1]) { upper -= 1 }
        let value = UnsafeRawBufferPointer(rebasing: line[lower..<upper])
        for byte in value where !HTTPRequestValidation.isFieldValueByte(byte) {
            throw .badResponse("invalid byte in header field value")
        }
        return (UnsafeRawBufferPointer(rebasing: line[0..<colon]), value)
    }

    /// Checks a trailer section's field lines; the fields are dropped.
    /// Folded lines (obs-fold) are unfolded as in a head, only to check
    /// them.
    private static func checkTrailers(_ bytes: UnsafeRawBufferPointer) throws(UVURLError) {
        var lineStart = 0
        var unfolded: [UInt8] = []
        while true {
            let lineEnd = Self.indexOfCR(bytes, from: lineStart)
            if lineEnd == lineStart { return }
            let line = UnsafeRawBufferPointer(rebasing: bytes[lineStart..<lineEnd])
            if HTTPTokenList.isOWS(line[0]) {
                throw .badResponse("whitespace before the first trailer field")
            }
            let (_, value) = try splitFieldLine(line)
            lineStart = lineEnd + 2
            if HTTPTokenList.isOWS(bytes[lineStart]) {
                lineStart = try unfold(bytes, value: value, from: lineStart, into: &unfolded)
            }
        }
    }

    /// Joins a field value folded over several lines (obs-fold, RFC 9112
    /// section 5.2) into `unfolded`: the first line's value, then each
    /// continuation line's value (without its surrounding whitespace),
    /// with one SP in place of each fold. `start` is the offset of the
    /// first continuation line (it starts with SP or HTAB); returns the
    /// offset of the line after the last one.
    ///
    /// `"X-A: a\r\n  b\r\n\tc"` gives `"a b c"`.
    private static func unfold(
        _ bytes: UnsafeRawBufferPointer,
        value: UnsafeRawBufferPointer,
        from start: Int,
        into unfolded: inout [UInt8]
    ) throws(UVURLError) -> Int {
        unfolded.removeAll(keepingCapacity: true)
        unfolded.append(contentsOf: value)
        var lineStart = start
        while HTTPTokenList.isOWS(bytes[lineStart]) {
            let lineEnd = indexOfCR(bytes, from: lineStart)
            var lower = lineStart
            var upper = lineEnd
            while lower < upper && HTTPTokenList.isOWS(bytes[lower]) { lower += 1 }
            while upper > lower && HTTPTokenList.isOWS(bytes[upper - 1]) { upper -= 1 }
            for index in lower..<upper where !HTTPRequestValidation.isFieldValueByte(bytes[index]) {
                throw .badResponse("invalid byte in header field value")
            }
            if lower < upper {
                if !unfolded.isEmpty { unfolded.append(0x20) }
                unfolded.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[lower..<upper]))
            }
            lineStart = lineEnd + 2
        }
        return lineStart
    }

    /// The index of the next CR at or after `start`; the caller knows
    /// there is one (the scan checked every line ending).
    @inline(__always)
    private static func indexOfCR(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        let found = memchr(bytes.baseAddress! + start, 0x0D, bytes.count - start)!
        return bytes.baseAddress!.distance(to: UnsafeRawPointer(found))
    }

    /// The fields that decide framing and connection reuse.
    private enum FramingField {
        case contentLength, transferEncoding, connection, contentEncoding, other
    }

    @inline(__always)
    private static func framingField(_ name: UnsafeRawBufferPointer) -> FramingField {
        switch name.count {
        case 14 where HTTPTokenList.equalsIgnoringCase(name, "content-length"): .contentLength
        case 17 where HTTPTokenList.equalsIgnoringCase(name, "transfer-encoding"): .transferEncoding
        case 16 where HTTPTokenList.equalsIgnoringCase(name, "content-encoding"): .contentEncoding
        case 10 where HTTPTokenList.equalsIgnoringCase(name, "connection"): .connection
        default: .other
        }
    }

    /// The field name for validated token bytes. Common names spelled as
    /// swift-http-types spells them reuse its static names (no string is
    /// created); others keep the server's spelling.
    private static func fieldName(_ bytes: UnsafeRawBufferPointer) -> HTTPField.Name {
        @inline(__always) func matches(_ name: StaticString) -> Bool {
            memcmp(bytes.baseAddress!, name.utf8Start, bytes.count) == 0
        }
        switch bytes.count {
        case 3:
            if matches("Age") { return .age }
            if matches("Via") { return .via }
        case 4:
            if matches("Date") { return .date }
            if matches("ETag") { return .eTag }
            if matches("Vary") { return .vary }
        case 5:
            if matches("Allow") { return .allow }
        case 6:
            if matches("Server") { return .server }
        case 7:
            if matches("Expires") { return .expires }
            if matches("Trailer") { return .trailer }
            if matches("Upgrade") { return .upgrade }
        case 8:
            if matches("Location") { return .location }
        case 10:
            if matches("Connection") { return .connection }
            if matches("Set-Cookie") { return .setCookie }
            if matches("Keep-Alive") { return keepAliveName }
        case 11:
            if matches("Retry-After") { return .retryAfter }
        case 12:
            if matches("Content-Type") { return .contentType }
        case 13:
            if matches("Cache-Control") { return .cacheControl }
            if matches("Last-Modified") { return .lastModified }
            if matches("Accept-Ranges") { return .acceptRanges }
            if matches("Content-Range") { return .contentRange }
        case 14:
            if matches("Content-Length") { return .contentLength }
        case 16:
            if matches("Content-Encoding") { return .contentEncoding }
            if matches("Content-Language") { return .contentLanguage }
            if matches("Content-Location") { return .contentLocation }
            if matches("WWW-Authenticate") { return .wwwAuthenticate }
        case 17:
            if matches("Transfer-Encoding") { return .transferEncoding }
        case 22:
            if matches("X-Content-Type-Options") { return .xContentTypeOptions }
        case 25:
            if matches("Strict-Transport-Security") { return .strictTransportSecurity }
        case 27:
            if matches("Access-Control-Allow-Origin") { return .accessControlAllowOrigin }
        default:
            break
        }
        guard let name = HTTPField.Name(String(decoding: bytes, as: UTF8.self)) else {
            httpViolation("HTTPResponseParser.fieldName: a validated token was refused by HTTPField.Name")
        }
        return name
    }

    private static var keepAliveName: HTTPField.Name { HTTPField.Name("Keep-Alive")! }

    /// A field from validated bytes. ASCII values (nearly all) become a
    /// `String` directly, which swift-http-types stores as is; values with
    /// obs-text bytes keep their exact bytes.
    @inline(__always)
    private static func field(_ name: HTTPField.Name, _ value: UnsafeRawBufferPointer) -> HTTPField {
        var ascii = true
        for byte in value where byte >= 0x80 {
            ascii = false
            break
        }
        if ascii {
            return HTTPField(name: name, value: String(decoding: value, as: UTF8.self))
        }
        return HTTPField(name: name, value: value)
    }
}
