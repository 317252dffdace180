/// The byte rules of RFC 9110 and RFC 9112, written out plainly as the
/// reference the library is checked against (the library has its own,
/// faster, implementation; a disagreement is a finding).
public enum HTTPGrammar {
    /// `tchar`: `!#$%&'*+-.^_`|~`, digits and letters.
    public static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// `token = 1*tchar`.
    public static func isToken(_ bytes: some Collection<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy(isTokenByte)
    }

    /// `field-vchar / SP / HTAB`: VCHAR (0x21-0x7E), obs-text (0x80-0xFF),
    /// SP and HTAB. Never CR, LF, NUL, DEL or another control byte.
    public static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte == 0x09 || byte == 0x20 || (byte >= 0x21 && byte <= 0x7E) || byte >= 0x80
    }

    /// SP or HTAB.
    public static func isOWS(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }

    /// A field value as stored: field-value bytes only, not starting or
    /// ending with whitespace.
    public static func isTrimmedFieldValue(_ bytes: [UInt8]) -> Bool {
        guard bytes.allSatisfy(isFieldValueByte) else { return false }
        if let first = bytes.first, isOWS(first) { return false }
        if let last = bytes.last, isOWS(last) { return false }
        return true
    }

    /// The elements of a comma-separated list, trimmed, empty ones dropped.
    public static func listElements(_ bytes: [UInt8]) -> [[UInt8]] {
        bytes.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).compactMap { element in
            let trimmed = element.drop(while: isOWS).reversed().drop(while: isOWS).reversed()
            return trimmed.isEmpty ? nil : Array(trimmed)
        }
    }

    /// Whether a list holds `token`, ignoring ASCII case.
    public static func listContains(_ bytes: [UInt8], _ token: String) -> Bool {
        listElements(bytes).contains { lowercased($0) == Array(token.utf8) }
    }

    /// The value of a hexadecimal digit, `nil` for any other byte.
    public static func hexDigit(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }

    /// ASCII lowercase.
    public static func lowercased(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
    }

    /// Whether a name equals `name`, ignoring ASCII case.
    public static func nameEquals(_ candidate: String, _ name: String) -> Bool {
        lowercased(candidate.utf8) == lowercased(name.utf8)
    }

    /// `1*DIGIT` as a number, `nil` when not digits or too large for `Int`.
    public static func decimal(_ bytes: [UInt8]) -> Int? {
        guard !bytes.isEmpty, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var value = 0
        for byte in bytes {
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int(byte - 0x30))
            if o1 || o2 { return nil }
            value = sum
        }
        return value
    }

    /// A request target this client may write (RFC 9112 section 3.2):
    /// origin-form (`/` then visible ASCII; non-ASCII must arrive
    /// percent-encoded), or `*` for OPTIONS; never a fragment.
    public static func isRequestTarget(_ target: [UInt8], method: [UInt8]) -> Bool {
        guard let first = target.first, target.allSatisfy(isVisibleASCII) else { return false }
        if target.contains(UInt8(ascii: "#")) { return false }
        if target == [UInt8(ascii: "*")] { return method == Array("OPTIONS".utf8) }
        return first == UInt8(ascii: "/")
    }

    /// An authority for `Host` (RFC 3986 host and port characters): letters,
    /// digits, unreserved, sub-delims, `:`, brackets and `%` (IPv6 literals);
    /// nothing else, and not empty.
    public static func isAuthority(_ authority: [UInt8]) -> Bool {
        !authority.isEmpty && authority.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
                UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
                UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
                UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "%"):
                true
            default:
                false
            }
        }
    }

    /// A method this client may send: a token, and not CONNECT.
    public static func isSendableMethod(_ method: [UInt8]) -> Bool {
        isToken(method) && method != Array("CONNECT".utf8)
    }

    /// Visible ASCII (0x21-0x7E).
    public static func isVisibleASCII(_ byte: UInt8) -> Bool {
        byte >= 0x21 && byte <= 0x7E
    }
}

/// Writes a recorded response back out as HTTP/1.1 bytes, with the framing
/// its fields announce: a chunked body as one chunk, a `Content-Length` body
/// as is, otherwise a close-delimited body.
public enum ResponseSerializer {
    /// The bytes of `record`'s head and body, for a request with `method`.
    public static func serialize(_ record: ResponseRecord, method: String) -> [UInt8] {
        var bytes = Array("HTTP/1.1 \(record.status)".utf8)
        if !record.reason.isEmpty {
            bytes.append(0x20)
            bytes += Array(record.reason.utf8)
        }
        bytes += [0x0D, 0x0A]
        for field in record.fields {
            bytes += Array(field.name.utf8) + Array(": ".utf8) + field.value + [0x0D, 0x0A]
        }
        bytes += [0x0D, 0x0A]
        if method == "HEAD" || record.status == 204 || record.status == 304 {
            return bytes
        }
        if record.fields.contains(where: { HTTPGrammar.nameEquals($0.name, "Transfer-Encoding") }) {
            if !record.body.isEmpty {
                bytes += Array(String(record.body.count, radix: 16).utf8) + [0x0D, 0x0A] + record.body + [0x0D, 0x0A]
            }
            bytes += Array("0\r\n\r\n".utf8)
        } else {
            bytes += record.body
        }
        return bytes
    }
}
