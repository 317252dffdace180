import HTTPTypes

// Parsing a complete head: the status line, each field line, and what the
// fields say about framing and connection reuse (RFC 9112 sections 4, 5,
// 6.3 and 9.3).

extension HTTPResponseParser {
    /// A parsed head and what it says about the body and the connection.
    internal struct ParsedHead {
        var response: HTTPResponse
        var isInterim: Bool
        var framing: Framing
        var keepAlive: Bool
        /// Whether a `Content-Encoding` field is present.
        var hasContentEncoding: Bool
        /// The status code (`response.status.code` without reading the
        /// response's `:status` pseudo-field back).
        var statusCode: Int
    }

    /// Parses a complete head: status line, field lines, final CRLF. The
    /// scan already guaranteed CRLF line endings and the limits.
    internal func parseHead(_ bytes: UnsafeRawBufferPointer) throws(UVURLError) -> ParsedHead {
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
                              hasContentEncoding: false, statusCode: code)
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
                          hasContentEncoding: hasContentEncoding, statusCode: code)
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
}
