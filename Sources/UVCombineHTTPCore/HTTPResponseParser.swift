import HTTPTypes

// The parser's state, its entry points and its driver (`step`: one event per
// call). The rest, by concern: HTTPResponseParser.Configuration.swift and
// HTTPResponseParser.Event.swift (API types), +Sections.swift (scanning a
// head or trailer section), +Head.swift (parsing a head), +FieldLines.swift
// (field lines and field values), +Chunked.swift (chunk-size lines),
// +HeadCache.swift (reusing a repeated head).

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
public struct HTTPResponseParser: Sendable {
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

    // The state below is read and written by the extensions in
    // HTTPResponseParser+Sections.swift (head and trailer scan),
    // +Chunked.swift (chunk-size lines), +Head.swift (head parsing) and
    // +HeadCache.swift; what they touch is `internal` for that reason alone
    // (a stored property cannot live in an extension). Nothing outside the
    // parser uses it.

    /// Where the parser is; see the type's documentation.
    internal var phase: Phase = .idle
    /// Whether the request was HEAD (its response has no body).
    internal private(set) var requestIsHead = false
    /// Whether the request said `Connection: close`.
    private var requestCloses = false
    /// Whether any byte of the current response arrived.
    public private(set) var hasReceivedResponseBytes = false
    /// Whether the connection may be reused once the current response ends.
    private var keepAlive = true

    /// Body bytes still expected in `fixedBody` and `chunkData`.
    internal var remaining = 0
    /// Body bytes delivered so far, for `maximumBodyLength`.
    private var bodyLength = 0
    /// The chunk size being read and the length of its line.
    internal var chunkSize = 0
    internal var chunkLineLength = 0
    internal var chunkDigits = 0

    /// The scan of a head or trailer section in progress.
    internal var sectionBytes = 0
    internal var lineLength = 0
    internal var lineCount = 0
    internal var lastWasCR = false
    /// Head bytes gathered across chunks; keeps its capacity.
    internal private(set) var headBuffer: [UInt8] = []
    /// The last final head parsed from one chunk, byte for byte, and what
    /// it parsed to (for `cachedHeadIsForHEAD`): a keep-alive server sends
    /// the same head again and again (nginx's changes once a second, with
    /// its `Date`), and a head equal to it byte for byte parses to the
    /// same response, so it is reused instead of parsed (no fields built,
    /// no allocation). Empty when nothing is cached.
    internal var cachedHead: [UInt8] = []
    internal var cachedParsedHead: ParsedHead?
    internal var cachedHeadIsForHEAD = false
    /// The body length the current response's head announced
    /// (`Content-Length`), once its head was parsed; nil for other framings.
    package private(set) var announcedBodyLength: Int?
    /// Whether the current response's head has a `Content-Encoding` field,
    /// once its head was parsed: without one there is nothing to decode,
    /// and the session need not look through the fields.
    package private(set) var hasContentEncoding = false
    /// The current response's status code, once its head was parsed:
    /// cheaper than `HTTPResponse.status`, which reads the `:status`
    /// pseudo-field back (about 200 instructions; callgrind, issue 17).
    package private(set) var statusCode = 0

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
    package var remainingFixedBodyLength: Int? {
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

    /// Sets up the body state for a final head.
    private mutating func begin(_ head: ParsedHead) throws(UVURLError) {
        keepAlive = head.keepAlive && !requestCloses
        announcedBodyLength = nil
        hasContentEncoding = head.hasContentEncoding
        statusCode = head.statusCode
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
    internal mutating func addBody(_ length: Int) throws(UVURLError) {
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
}
