import HTTPTypes

/// Serialises an `HTTPRequest` (swift-http-types) and its body into
/// HTTP/1.1 bytes, appended to a buffer the caller reuses.
///
/// The head is written as
///
/// ```text
/// GET /search?q=swift HTTP/1.1\r\n
/// Host: example.com:8080\r\n           <- from request.authority
/// <request.headerFields, in order>\r\n
/// Content-Length: 12\r\n               <- for a body, and 0 for POST/PUT/PATCH without one
/// Connection: close\r\n                <- when asked
/// \r\n
/// ```
///
/// Rules:
/// - The request target is `request.path` in origin form (`/path?query`,
///   or `*` for OPTIONS); the authority becomes the `Host` field, built by
///   ``HTTPRequestTarget`` with brackets around IPv6 literals and without a
///   default port. A request with no authority may carry its own `Host`
///   field; one with both is refused.
/// - `Content-Length` is computed from the body. A `Content-Length` field
///   in `headerFields` must agree with it and is then written once; a
///   `Transfer-Encoding` field is refused: the writer frames bodies
///   itself (`Transfer-Encoding: chunked` only for a streamed body of
///   unknown length, written by the session).
/// - `Connection: close` is added when `closeConnection` is true, unless
///   the request's own `Connection` field already says `close`.
/// - Every byte is checked by ``HTTPRequestValidation`` *before* anything
///   is appended: a refused request leaves `buffer` untouched. A field value
///   that starts or ends with whitespace (which `HTTPField(name:lenientValue:)`
///   keeps) is refused too: the server would strip it, so the value would
///   not arrive as written.
///
/// Allocation: none per request once `buffer` has grown to fit (it keeps
/// its capacity when the caller empties it with
/// `removeAll(keepingCapacity: true)`).
///
/// ```swift
/// var buffer: [UInt8] = []
/// buffer.reserveCapacity(4096)
/// let target = try HTTPRequestTarget(url: URL(string: "http://example.com/hello")!)
/// let request = target.makeRequest(method: .post)
/// let result = try HTTPRequestWriter.append(request, body: Array("hi".utf8), to: &buffer)
/// print(String(decoding: buffer, as: UTF8.self))
/// // Prints: "POST /hello HTTP/1.1\r\nHost: example.com\r\nContent-Length: 2\r\n\r\nhi"
/// print(result.closesConnection) // Prints: "false"
/// ```
///
/// Threading: stateless; call from any thread.
public enum HTTPRequestWriter {
    /// What the writer did, for the connection's bookkeeping.
    ///
    /// ```swift
    /// let result = try HTTPRequestWriter.append(request, body: nil, to: &buffer)
    /// parser.expectResponse(to: request.method, requestClosesConnection: result.closesConnection)
    /// ```
    public struct Result: Sendable, Equatable {
        /// Whether the written request asks the server to close the
        /// connection after the response (`Connection: close`, ours or the
        /// caller's). The response parser and the pool must then not reuse
        /// the connection.
        public var closesConnection: Bool
        /// How many bytes were appended, head and body.
        public var byteCount: Int

        /// A result as the writer reports it; the session makes one for a
        /// head it wrote earlier (a publisher's prepared head).
        ///
        /// ```swift
        /// let result = HTTPRequestWriter.Result(closesConnection: false, byteCount: head.count)
        /// ```
        public init(closesConnection: Bool, byteCount: Int) {
            self.closesConnection = closesConnection
            self.byteCount = byteCount
        }
    }

    /// Appends the request head and `body` to `buffer`.
    ///
    /// - Throws: ``UVURLError`` with code `.invalidRequest` or `.badURL`
    ///   when any part of the request cannot be written; `buffer` is then
    ///   unchanged.
    @discardableResult
    public static func append(
        _ request: HTTPRequest,
        body: some Collection<UInt8>,
        closeConnection: Bool = false,
        to buffer: inout [UInt8]
    ) throws(UVURLError) -> Result {
        var result = try appendHead(of: request, bodyLength: body.count, closeConnection: closeConnection, to: &buffer)
        buffer.append(contentsOf: body)
        result.byteCount += body.count
        return result
    }

    /// Appends a request without a body.
    ///
    /// - Throws: as `append(_:body:closeConnection:to:)`.
    @discardableResult
    public static func append(
        _ request: HTTPRequest,
        closeConnection: Bool = false,
        to buffer: inout [UInt8]
    ) throws(UVURLError) -> Result {
        try appendHead(of: request, bodyLength: 0, closeConnection: closeConnection, to: &buffer)
    }

    /// Appends only the head, announcing a body of `bodyLength` bytes that
    /// the caller sends next (for bodies written straight from their own
    /// storage).
    ///
    /// - Throws: as `append(_:body:closeConnection:to:)`.
    @discardableResult
    public static func appendHead(
        of request: HTTPRequest,
        bodyLength: Int,
        closeConnection: Bool = false,
        to buffer: inout [UInt8]
    ) throws(UVURLError) -> Result {
        precondition(bodyLength >= 0, "HTTPRequestWriter: bodyLength must not be negative")
        return try appendHead(of: request, framing: .length(bodyLength), closeConnection: closeConnection, to: &buffer)
    }

    /// How the body after a head is delimited.
    package enum BodyFraming: Sendable, Equatable {
        /// `Content-Length: n` (and nothing for 0, except for POST, PUT
        /// and PATCH, which say `Content-Length: 0`).
        case length(Int)
        /// `Transfer-Encoding: chunked`: the body follows in chunks
        /// (``appendChunk(_:to:)``), ended by ``appendLastChunk(to:)``.
        /// A `Content-Length` field in the request is refused.
        case chunked
    }

    /// Appends only the head, announcing a body framed as `framing` (a
    /// streamed body: the session writes it as it comes).
    ///
    /// - Throws: as `append(_:body:closeConnection:to:)`.
    @discardableResult
    package static func appendHead(
        of request: HTTPRequest,
        framing: BodyFraming,
        closeConnection: Bool = false,
        to buffer: inout [UInt8]
    ) throws(UVURLError) -> Result {
        let bodyLength: Int
        switch framing {
        case .length(let length): bodyLength = length
        case .chunked: bodyLength = -1
        }
        let plan = try validate(request, bodyLength: bodyLength)
        let start = buffer.count

        let method = request.method.rawValue
        buffer.append(contentsOf: method.utf8)
        buffer.append(0x20)
        buffer.append(contentsOf: plan.target.utf8)
        buffer.append(contentsOf: " HTTP/1.1\r\n".utf8)

        if let authority = request.authority {
            buffer.append(contentsOf: "Host: ".utf8)
            buffer.append(contentsOf: authority.utf8)
            buffer.append(contentsOf: crlf)
        }
        for field in request.headerFields where field.name != .contentLength {
            buffer.append(contentsOf: field.name.rawName.utf8)
            buffer.append(contentsOf: ": ".utf8)
            field.withUnsafeBytesOfValue { buffer.append(contentsOf: $0) }
            buffer.append(contentsOf: crlf)
        }
        if bodyLength < 0 {
            buffer.append(contentsOf: "Transfer-Encoding: chunked\r\n".utf8)
        } else if plan.writesContentLength {
            buffer.append(contentsOf: "Content-Length: ".utf8)
            appendDecimal(bodyLength, to: &buffer)
            buffer.append(contentsOf: crlf)
        }
        let addsClose = closeConnection && !plan.fieldsAskToClose
        if addsClose {
            buffer.append(contentsOf: "Connection: close\r\n".utf8)
        }
        buffer.append(contentsOf: crlf)
        return Result(closesConnection: addsClose || plan.fieldsAskToClose, byteCount: buffer.count - start)
    }

    // MARK: Validation

    /// What validation learned about the request, for the writing pass.
    private struct Plan {
        var target: String
        var writesContentLength: Bool
        var fieldsAskToClose: Bool
    }

    /// Methods that carry a body by convention and so get
    /// `Content-Length: 0` when they have none (as curl and URLSession do).
    private static func expectsBody(_ method: HTTPRequest.Method) -> Bool {
        method == .post || method == .put || method == .patch
    }

    /// Runs every check; throws before anything is written. A negative
    /// `bodyLength` stands for a chunked body.
    private static func validate(_ request: HTTPRequest, bodyLength: Int) throws(UVURLError) -> Plan {
        let method = request.method.rawValue
        try HTTPRequestValidation.validateMethod(method)
        guard let target = request.path else {
            throw UVURLError(.badURL, detail: "empty request target")
        }
        try HTTPRequestValidation.validateTarget(target, method: method)
        if let authority = request.authority {
            try HTTPRequestValidation.validateAuthority(authority)
        }

        var sawHost = false
        var fieldsAskToClose = false
        var writesContentLength = bodyLength > 0 || expectsBody(request.method)
        for field in request.headerFields {
            let name = field.name.rawName
            try HTTPRequestValidation.validateFieldName(name)
            try field.withUnsafeBytesOfValue { (bytes) throws(UVURLError) in
                try HTTPRequestValidation.validateFieldValue(bytes, name: name)
                try HTTPRequestValidation.validateFieldValueEnds(bytes, name: name)
            }
            switch field.name {
            case hostFieldName:
                if request.authority != nil {
                    throw UVURLError(.invalidRequest, detail: "both a request authority and a Host header field")
                }
                if sawHost {
                    throw UVURLError(.invalidRequest, detail: "more than one Host header field")
                }
                sawHost = true
            case .contentLength:
                if bodyLength < 0 {
                    throw UVURLError(.invalidRequest, detail: "Content-Length field with a chunked body")
                }
                let matches = field.withUnsafeBytesOfValue { bytes in
                    decimalEquals(bytes, bodyLength)
                }
                if !matches {
                    throw UVURLError(
                        .invalidRequest,
                        detail: "Content-Length field \(HTTPRequestValidation.quoted(field.value)) does not match the body length \(bodyLength)"
                    )
                }
                writesContentLength = true
            case .transferEncoding:
                throw UVURLError(.invalidRequest, detail: "Transfer-Encoding in a request is not supported")
            case .connection:
                if field.withUnsafeBytesOfValue({ HTTPTokenList.contains($0, "close") }) {
                    fieldsAskToClose = true
                }
            default:
                break
            }
        }
        if request.authority == nil && !sawHost {
            throw UVURLError(.badURL, detail: "no host: the request has no authority and no Host header field")
        }
        return Plan(target: target, writesContentLength: writesContentLength, fieldsAskToClose: fieldsAskToClose)
    }

    /// `Host` (swift-http-types marks its static name unavailable, to
    /// steer users to the authority).
    private static let hostFieldName = HTTPField.Name("Host")!

    // MARK: Chunked bodies

    /// Appends one chunk of a chunked body: the size in hex, CRLF, the
    /// bytes, CRLF. An empty `bytes` appends nothing (an empty chunk would
    /// end the body).
    ///
    /// ```swift
    /// HTTPRequestWriter.appendChunk(Array("hello".utf8), to: &buffer) // "5\r\nhello\r\n"
    /// ```
    package static func appendChunk(_ bytes: some Collection<UInt8>, to buffer: inout [UInt8]) {
        guard !bytes.isEmpty else { return }
        appendHex(bytes.count, to: &buffer)
        buffer.append(contentsOf: crlf)
        buffer.append(contentsOf: bytes)
        buffer.append(contentsOf: crlf)
    }

    /// Appends the end of a chunked body (`0\r\n\r\n`: no trailers).
    package static func appendLastChunk(to buffer: inout [UInt8]) {
        buffer.append(contentsOf: "0\r\n\r\n".utf8)
    }

    /// Appends the lowercase hex digits of a positive integer.
    private static func appendHex(_ value: Int, to buffer: inout [UInt8]) {
        var shift = (Int.bitWidth - value.leadingZeroBitCount + 3) / 4 * 4 - 4
        while shift >= 0 {
            let digit = UInt8((value >> shift) & 0xF)
            buffer.append(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
            shift -= 4
        }
    }

    // MARK: Bytes

    private static let crlf: (UInt8, UInt8) = (0x0D, 0x0A)

    /// Appends the decimal digits of a non-negative integer without
    /// creating a string.
    private static func appendDecimal(_ value: Int, to buffer: inout [UInt8]) {
        var divisor = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            buffer.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    /// Whether `bytes` spell exactly the decimal form of `value`.
    private static func decimalEquals(_ bytes: UnsafeBufferPointer<UInt8>, _ value: Int) -> Bool {
        guard let parsed = HTTPTokenList.parseDecimal(UnsafeRawBufferPointer(bytes)) else { return false }
        return parsed == value
    }
}

extension Array where Element == UInt8 {
    /// Appends CR LF.
    @inline(__always)
    fileprivate mutating func append(contentsOf pair: (UInt8, UInt8)) {
        append(pair.0)
        append(pair.1)
    }
}
