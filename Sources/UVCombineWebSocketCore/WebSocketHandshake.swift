import HTTPTypes
import UVCombineHTTPCore

/// The client's side of the opening handshake (RFC 6455, 4.1 and 4.2.2):
/// the `GET` request with a fresh `Sec-WebSocket-Key`, and the check of
/// the server's answer: status 101, `Upgrade: websocket`, `Connection:
/// Upgrade`, `Sec-WebSocket-Accept` equal to base64(SHA-1(key + GUID)), a
/// subprotocol among those offered (or none), only offered extensions.
///
/// ```swift
/// let handshake = WebSocketHandshake(subprotocols: ["chat"], compression: PerMessageDeflate.Offer())
/// let head = try handshake.requestHead(authority: "127.0.0.1:8080", target: "/chat", extraFields: [:])
/// // ... send head, read the answer's head ...
/// let agreed = try handshake.validate(responseHead: answer)
/// print(agreed.subprotocol ?? "none")
/// ```
///
/// Threading: a value type; `Sendable`.
package struct WebSocketHandshake: Sendable {
    /// What the server agreed to.
    package struct Agreement: Sendable, Equatable {
        /// The server's response (status 101 and its fields).
        package var response: HTTPResponse
        /// The subprotocol chosen, or nil.
        package var subprotocol: String?
        /// permessage-deflate's parameters, when the server accepted it.
        package var compression: PerMessageDeflate.Parameters?
    }

    /// RFC 6455's GUID, appended to the key before hashing.
    package static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
    /// Header fields the handshake writes itself: callers may not set them.
    package static let reservedFields: Set<String> = [
        "host", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version",
        "sec-websocket-extensions", "sec-websocket-protocol", "content-length", "transfer-encoding",
    ]

    /// The `Sec-WebSocket-Key`: 16 random bytes (from the CSPRNG), base64.
    package let key: String
    package let subprotocols: [String]
    package let compression: PerMessageDeflate.Offer?

    /// A handshake with a fresh key (or `key`, for tests).
    package init(subprotocols: [String] = [], compression: PerMessageDeflate.Offer? = nil, key: String? = nil) {
        if let key {
            self.key = key
        } else {
            var random = SystemRandomNumberGenerator()
            var bytes: [UInt8] = []
            for _ in 0..<2 {
                let word: UInt64 = random.next()
                for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
            }
            self.key = Base64.encoded(bytes)
        }
        self.subprotocols = subprotocols
        self.compression = compression
    }

    /// base64(SHA-1(`key` + GUID)): what the server must answer.
    ///
    /// ```swift
    /// print(WebSocketHandshake.acceptValue(for: "dGhlIHNhbXBsZSBub25jZQ==")) // Prints: "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
    /// ```
    package static func acceptValue(for key: String) -> String {
        Base64.encoded(SHA1.digest(Array((key + guid).utf8)))
    }

    /// The request head: `GET target HTTP/1.1`, `Host`, the upgrade fields,
    /// the offers, then `extraFields`.
    ///
    /// - Throws: for a subprotocol that is not a token, or an extra field
    ///   the handshake writes itself or whose name or value is not valid.
    package func requestHead(authority: String, target: String, extraFields: HTTPFields) throws(WebSocketHandshakeError) -> [UInt8] {
        var head = "GET \(target) HTTP/1.1\r\nHost: \(authority)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        head += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        if !subprotocols.isEmpty {
            for name in subprotocols {
                guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenByte) else {
                    throw WebSocketHandshakeError("subprotocol \"\(name)\" is not a token")
                }
            }
            head += "Sec-WebSocket-Protocol: \(subprotocols.joined(separator: ", "))\r\n"
        }
        if let compression { head += "Sec-WebSocket-Extensions: \(compression.headerValue)\r\n" }
        for field in extraFields {
            let name = field.name.canonicalName
            guard !Self.reservedFields.contains(name) else {
                throw WebSocketHandshakeError("header field \(field.name.rawName) is set by the WebSocket handshake")
            }
            try Self.validateFieldValue(field.value, name: field.name.rawName)
            head += "\(field.name.rawName): \(field.value)\r\n"
        }
        head += "\r\n"
        return Array(head.utf8)
    }

    /// Checks the server's answer (its head, up to the blank line).
    package func validate(responseHead: [UInt8]) throws(WebSocketHandshakeError) -> Agreement {
        let response = try Self.parse(responseHead)
        let status = response.status.code
        guard status == 101 else {
            throw WebSocketHandshakeError("expected status 101, got \(status) \(response.status.reasonPhrase)", statusCode: status)
        }
        let fields = response.headerFields
        guard let upgrade = fields[.upgrade], upgrade.lowercased() == "websocket" else {
            throw WebSocketHandshakeError("the answer has no \"Upgrade: websocket\"", statusCode: status)
        }
        let connection = fields[values: .connection].flatMap { $0.split(separator: ",") }.map { $0.trimmingBlanks().lowercased() }
        guard connection.contains("upgrade") else {
            throw WebSocketHandshakeError("the answer has no \"Connection: Upgrade\"", statusCode: status)
        }
        let accepts = fields[values: .secWebSocketAccept]
        guard accepts.count == 1, accepts[0].trimmingBlanks() == Self.acceptValue(for: key) else {
            throw WebSocketHandshakeError(accepts.isEmpty ? "the answer has no Sec-WebSocket-Accept"
                                                          : "Sec-WebSocket-Accept does not match the key", statusCode: status)
        }
        var agreement = Agreement(response: response)
        let protocols = fields[values: .secWebSocketProtocol]
        if !protocols.isEmpty {
            let chosen = protocols[0].trimmingBlanks()
            guard protocols.count == 1, subprotocols.contains(chosen) else {
                throw WebSocketHandshakeError("the server chose subprotocol \"\(protocols.joined(separator: ", "))\", which was not offered",
                                              statusCode: status)
            }
            agreement.subprotocol = chosen
        }
        let extensions = fields[values: .secWebSocketExtensions].flatMap { Self.splitElements($0) }
        for element in extensions where !element.isEmpty {
            guard let offer = compression else {
                throw WebSocketHandshakeError("the server answered with extension \"\(element)\", which was not offered", statusCode: status)
            }
            guard agreement.compression == nil else {
                throw WebSocketHandshakeError("the server answered with permessage-deflate twice", statusCode: status)
            }
            do throws(WebSocketHandshakeError) {
                agreement.compression = try PerMessageDeflate.Parameters(response: element, offer: offer)
            } catch {
                throw WebSocketHandshakeError(error.reason, statusCode: status)
            }
        }
        return agreement
    }

    /// Splits an extension list at commas outside quoted strings.
    private static func splitElements(_ value: String) -> [String] {
        var elements: [String] = []
        var current = ""
        var quoted = false
        for character in value {
            if character == "\"" { quoted.toggle() }
            if character == "," && !quoted {
                elements.append(current.trimmingBlanks())
                current = ""
            } else {
                current.append(character)
            }
        }
        elements.append(current.trimmingBlanks())
        return elements
    }

    /// Parses `HTTP/1.1 NNN reason` and the field lines of a head.
    package static func parse(_ head: [UInt8]) throws(WebSocketHandshakeError) -> HTTPResponse {
        var lines = String(decoding: head, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/1.1 ") || statusLine.hasPrefix("HTTP/1.0 "),
              statusLine.count >= 12 else {
            throw WebSocketHandshakeError("the answer does not start with an HTTP/1.1 status line")
        }
        let codeText = statusLine.dropFirst(9).prefix(3)
        guard codeText.count == 3, codeText.allSatisfy(\.isASCII), let code = Int(codeText), (100...999).contains(code) else {
            throw WebSocketHandshakeError("the answer's status line is malformed")
        }
        let reason = String(statusLine.dropFirst(13))
        var fields = HTTPFields()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) else {
                throw WebSocketHandshakeError("the answer has a malformed header line", statusCode: code)
            }
            fields.append(HTTPField(name: name, value: line[line.index(after: colon)...].trimmingBlanks()))
        }
        return HTTPResponse(status: HTTPResponse.Status(code: code, reasonPhrase: reason), headerFields: fields)
    }

    /// Refuses a field value with a byte RFC 9110 5.5 forbids: CR, LF,
    /// NUL, DEL or another control byte (HTAB is allowed). The message
    /// names the byte and the field, as UVCombineHTTPCore's request
    /// validation does (why not call it: that module brings
    /// FoundationEssentials, which this one must not).
    private static func validateFieldValue(_ value: String, name: String) throws(WebSocketHandshakeError) {
        for byte in value.utf8 where !(byte == 0x09 || (byte >= 0x20 && byte != 0x7F)) {
            let what: String
            switch byte {
            case 0x0D: what = "CR"
            case 0x0A: what = "LF"
            case 0x00: what = "NUL"
            case 0x7F: what = "DEL"
            default:
                let digits = Array("0123456789ABCDEF".utf8)
                what = "control byte 0x" + String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]], as: UTF8.self)
            }
            throw WebSocketHandshakeError("\(what) in value of header field \"\(name)\"")
        }
    }

    /// RFC 9110's `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

extension HTTPField.Name {
    /// `Sec-WebSocket-Accept`.
    internal static let secWebSocketAccept = HTTPField.Name("Sec-WebSocket-Accept")!
    /// `Sec-WebSocket-Protocol`.
    internal static let secWebSocketProtocol = HTTPField.Name("Sec-WebSocket-Protocol")!
    /// `Sec-WebSocket-Extensions`.
    internal static let secWebSocketExtensions = HTTPField.Name("Sec-WebSocket-Extensions")!
}
