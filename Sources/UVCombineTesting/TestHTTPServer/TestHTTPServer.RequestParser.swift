import HTTPTypes

extension TestHTTPServer {
    /// A minimal, strict HTTP/1.1 request parser: the request line, the
    /// header fields and a `Content-Length` body. Bytes go in with
    /// ``append(_:)``; ``next()`` returns one complete request at a time, so
    /// pipelined requests come out in order.
    ///
    /// Refused with a status the server sends before closing: a head over
    /// ``maximumHeadBytes`` (431), a malformed request line, field line,
    /// name or value, a folded line, an invalid or conflicting
    /// `Content-Length`, a version other than HTTP/1.0 or 1.1 (400 or 505),
    /// a body over ``maximumBodyBytes`` (413), and `Transfer-Encoding`
    /// request bodies (501, not supported).
    ///
    /// Threading: a value type owned by one connection.
    ///
    /// ```swift
    /// var parser = TestHTTPServer.RequestParser()
    /// parser.append(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
    /// if case .request(let request) = parser.next() { print(request) } // Prints: "GET / HTTP/1.1"
    /// ```
    public struct RequestParser: Sendable {
        /// What ``next()`` found.
        ///
        /// ```swift
        /// switch parser.next() {
        /// case .needMoreData: break // read more bytes
        /// case .request(let request): answer(request)
        /// case .invalid(let status, let reason): reject(status, reason)
        /// }
        /// ```
        public enum Event: Sendable, Hashable {
            /// No complete request yet.
            case needMoreData
            /// A complete request.
            case request(Request)
            /// The bytes are not an acceptable request: answer `status` and
            /// close. The parser stays in this state.
            case invalid(HTTPResponse.Status, reason: String)
        }

        /// The largest request head accepted, in bytes.
        public var maximumHeadBytes = 64 * 1024
        /// The largest body accepted, in bytes.
        public var maximumBodyBytes = 64 * 1024 * 1024
        /// Stamped on every request.
        public var connectionNumber: Int

        private var buffer: [UInt8] = []
        /// Where to resume looking for the end of the head.
        private var searchFrom = 0
        private var failure: Event?

        /// A parser for requests of connection number `connectionNumber`.
        public init(connectionNumber: Int = 0) {
            self.connectionNumber = connectionNumber
        }

        /// Bytes received but not returned as requests yet.
        public var bufferedByteCount: Int { buffer.count }

        /// Adds received bytes.
        public mutating func append<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
            buffer.append(contentsOf: bytes)
        }

        /// The next complete request, or what stops it.
        public mutating func next() -> Event {
            if let failure { return failure }
            let event = parse()
            if case .invalid = event { failure = event }
            return event
        }

        private mutating func parse() -> Event {
            // RFC 9112 §2.2: ignore empty lines before a request line.
            var start = 0
            while buffer.count >= start + 2 && buffer[start] == 13 && buffer[start + 1] == 10 { start += 2 }
            guard let headEnd = findHeadEnd(from: max(searchFrom, start)) else {
                searchFrom = max(start, buffer.count - 3)
                if buffer.count - start > maximumHeadBytes {
                    return .invalid(.init(code: 431, reasonPhrase: "Request Header Fields Too Large"),
                                    reason: "request head over \(maximumHeadBytes) bytes")
                }
                return .needMoreData
            }
            if headEnd - start > maximumHeadBytes {
                return .invalid(.init(code: 431, reasonPhrase: "Request Header Fields Too Large"),
                                reason: "request head over \(maximumHeadBytes) bytes")
            }
            // Lines of the head, without the final empty line.
            var lines: [ArraySlice<UInt8>] = []
            var lineStart = start
            var index = start
            while index < headEnd - 2 {
                if buffer[index] == 13 {
                    guard buffer[index + 1] == 10 else { return .invalid(.badRequest, reason: "bare CR in the head") }
                    lines.append(buffer[lineStart..<index])
                    index += 2
                    lineStart = index
                } else if buffer[index] == 10 {
                    return .invalid(.badRequest, reason: "bare LF in the head")
                } else {
                    index += 1
                }
            }
            guard let requestLine = lines.first else { return .invalid(.badRequest, reason: "no request line") }
            let parts = requestLine.split(separator: 32, omittingEmptySubsequences: false)
            guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
                  parts[0].allSatisfy(Self.isTokenByte), parts[1].allSatisfy({ $0 > 32 && $0 < 127 }) else {
                return .invalid(.badRequest, reason: "malformed request line")
            }
            let version = String(decoding: parts[2], as: UTF8.self)
            guard version.hasPrefix("HTTP/") else { return .invalid(.badRequest, reason: "malformed request line") }
            guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
                return .invalid(.init(code: 505, reasonPhrase: "HTTP Version Not Supported"), reason: "version \(version)")
            }
            var fields = HTTPFields()
            for line in lines.dropFirst() {
                guard let first = line.first, first != 32, first != 9 else {
                    return .invalid(.badRequest, reason: "folded field line")
                }
                guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                    return .invalid(.badRequest, reason: "field line without a colon")
                }
                let nameBytes = line[line.startIndex..<colon]
                var value = line[(colon + 1)...]
                while let byte = value.first, byte == 32 || byte == 9 { value.removeFirst() }
                while let byte = value.last, byte == 32 || byte == 9 { value.removeLast() }
                guard let name = HTTPField.Name(String(decoding: nameBytes, as: UTF8.self)),
                      nameBytes.allSatisfy(Self.isTokenByte) else {
                    return .invalid(.badRequest, reason: "invalid field name")
                }
                guard HTTPField.isValidValue(value) else { return .invalid(.badRequest, reason: "invalid field value") }
                fields.append(HTTPField(name: name, value: value))
            }
            if !fields[values: .transferEncoding].isEmpty {
                return .invalid(.init(code: 501, reasonPhrase: "Not Implemented"),
                                reason: "Transfer-Encoding request bodies are not supported")
            }
            var bodyLength = 0
            let lengths = Set(fields[values: .contentLength])
            if lengths.count > 1 { return .invalid(.badRequest, reason: "conflicting Content-Length") }
            if let length = lengths.first {
                guard !length.isEmpty, length.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int(length) else {
                    return .invalid(.badRequest, reason: "invalid Content-Length")
                }
                guard value <= maximumBodyBytes else {
                    return .invalid(.init(code: 413, reasonPhrase: "Content Too Large"), reason: "body of \(value) bytes")
                }
                bodyLength = value
            }
            guard buffer.count - headEnd >= bodyLength else { return .needMoreData }
            let request = Request(method: String(decoding: parts[0], as: UTF8.self),
                                  target: String(decoding: parts[1], as: UTF8.self),
                                  version: version, headerFields: fields,
                                  body: Array(buffer[headEnd..<(headEnd + bodyLength)]),
                                  connectionNumber: connectionNumber)
            buffer.removeFirst(headEnd + bodyLength)
            searchFrom = 0
            return .request(request)
        }

        /// The index just past the first `\r\n\r\n` at or after `from`.
        private func findHeadEnd(from: Int) -> Int? {
            guard buffer.count >= 4 else { return nil }
            var index = max(from, 0)
            while index + 3 < buffer.count {
                if buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
                    return index + 4
                }
                index += 1
            }
            return nil
        }

        /// RFC 9110 `tchar`.
        private static func isTokenByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
            }
        }
    }
}
