/// A request as read back from the bytes the writer produced.
public struct ParsedRequest: Equatable, CustomStringConvertible {
    public var method: [UInt8]
    public var target: [UInt8]
    public var version: [UInt8]
    public var fields: [FieldRecord]
    public var body: [UInt8]

    public init(method: [UInt8], target: [UInt8], version: [UInt8], fields: [FieldRecord], body: [UInt8]) {
        self.method = method
        self.target = target
        self.version = version
        self.fields = fields
        self.body = body
    }

    public var description: String {
        "\(quotedBytes(method)) \(quotedBytes(target)) \(quotedBytes(version)) fields \(fields) body \(body.count) bytes"
    }
}

/// A deliberately small and strict HTTP/1.1 request reader (RFC 9112
/// sections 2-5), independent of the library's code, to read back what the
/// request writer wrote.
///
/// The head ends at the first empty line; every line ends with CRLF and
/// holds no other CR, LF or NUL; the request line is exactly
/// `method SP target SP version`; a field line is `name ":" OWS value OWS`
/// with a token name; the value is what is left after removing the OWS.
/// Everything after the head is the body.
public enum SimpleRequestParser {
    public static func parse(_ bytes: [UInt8]) -> Result<ParsedRequest, ParseFailure> {
        guard let headEnd = find([0x0D, 0x0A, 0x0D, 0x0A], in: bytes) else {
            return .failure(ParseFailure("no empty line ends the head"))
        }
        let head = Array(bytes[..<(headEnd + 2)])
        var lines: [[UInt8]] = []
        var line: [UInt8] = []
        var index = 0
        while index < head.count {
            let byte = head[index]
            if byte == 0x0D {
                guard index + 1 < head.count, head[index + 1] == 0x0A else {
                    return .failure(ParseFailure("CR without LF at \(index)"))
                }
                lines.append(line)
                line = []
                index += 2
                continue
            }
            if byte == 0x0A { return .failure(ParseFailure("bare LF at \(index)")) }
            if byte == 0x00 { return .failure(ParseFailure("NUL at \(index)")) }
            line.append(byte)
            index += 1
        }
        guard let requestLine = lines.first else { return .failure(ParseFailure("no request line")) }
        let parts = requestLine.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            return .failure(ParseFailure("request line \(quotedBytes(requestLine)) has \(parts.count) parts"))
        }
        var fields: [FieldRecord] = []
        for fieldLine in lines.dropFirst() {
            guard let colon = fieldLine.firstIndex(of: UInt8(ascii: ":")) else {
                return .failure(ParseFailure("field line without a colon: \(quotedBytes(fieldLine))"))
            }
            let name = Array(fieldLine[..<colon])
            guard HTTPGrammar.isToken(name) else {
                return .failure(ParseFailure("field name is not a token: \(quotedBytes(fieldLine))"))
            }
            let value = Array(fieldLine[(colon + 1)...].drop(while: HTTPGrammar.isOWS).reversed().drop(while: HTTPGrammar.isOWS).reversed())
            guard value.allSatisfy(HTTPGrammar.isFieldValueByte) else {
                return .failure(ParseFailure("invalid byte in field value: \(quotedBytes(fieldLine))"))
            }
            fields.append(FieldRecord(name: String(decoding: name, as: UTF8.self), value: value))
        }
        return .success(ParsedRequest(
            method: Array(parts[0]),
            target: Array(parts[1]),
            version: Array(parts[2]),
            fields: fields,
            body: Array(bytes[(headEnd + 4)...])
        ))
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        for start in 0...(bytes.count - needle.count) where bytes[start..<start + needle.count].elementsEqual(needle) {
            return start
        }
        return nil
    }
}

/// Why `SimpleRequestParser` refused the bytes.
public struct ParseFailure: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
