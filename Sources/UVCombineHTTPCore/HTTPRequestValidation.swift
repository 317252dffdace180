import HTTPTypes

/// The checks every byte of an HTTP/1.1 request head passes before the
/// request writer produces anything.
///
/// swift-http-types already guards some of this: `HTTPRequest.Method(_:)`
/// and `HTTPField.Name(_:)` return `nil` for non-tokens, and field values
/// and the `:path`/`:authority` pseudo fields are *legalised*: CR, LF, NUL
/// and other control bytes become spaces, and leading or trailing
/// whitespace is dropped. Legalising prevents header injection but silently
/// changes what the caller asked for. These checks are authoritative: the
/// writer runs them on everything it serialises, and
/// ``/UVCombineHTTP/HTTPTypes/HTTPField/strict(name:value:)`` builds a field from raw strings while
/// refusing, not repairing, bad input. Each refusal is a ``UVURLError``
/// whose `detail` names the byte and the place:
///
/// | input | code | detail |
/// | --- | --- | --- |
/// | method `"GE T"` | `.invalidRequest` | `method "GE T" is not an RFC 9110 token` |
/// | target `"/a b"` | `.badURL` | `space in request target` |
/// | authority `"h\r\nX: y"` | `.badURL` | `CR in host` |
/// | field name `"X-A\n"` | `.invalidRequest` | `LF in header field name "X-A\n"` |
/// | value `"a\r\nb"` of `X-A` | `.invalidRequest` | `CR in value of header field "X-A"` |
///
/// ```swift
/// do {
///     try HTTPRequestValidation.validateFieldValue("a\r\nSet-Cookie: x", name: "X-Trace")
/// } catch {
///     print(error.detail!) // Prints: "CR in value of header field "X-Trace""
/// }
/// ```
///
/// Threading: stateless; call from any thread.
public enum HTTPRequestValidation {
    /// Checks that `method` is an RFC 9110 token (`1*tchar`) and not
    /// `CONNECT`, which needs an authority-form target this client does not
    /// send.
    public static func validateMethod(_ method: String) throws(UVURLError) {
        if method.isEmpty {
            throw UVURLError(.invalidRequest, detail: "empty method")
        }
        for byte in method.utf8 where !isTokenByte(byte) {
            if let name = namedForbiddenByte(byte) {
                throw UVURLError(.invalidRequest, detail: "\(name) in method \(quoted(method))")
            }
            throw UVURLError(.invalidRequest, detail: "method \(quoted(method)) is not an RFC 9110 token")
        }
        if method == "CONNECT" {
            throw UVURLError(.invalidRequest, detail: "CONNECT requests are not supported")
        }
    }

    /// Checks an origin-form request target (`/path?query`), or `*` for
    /// `OPTIONS`: visible ASCII only (non-ASCII must be percent-encoded), no
    /// fragment.
    public static func validateTarget(_ target: String, method: String = "GET") throws(UVURLError) {
        guard let first = target.utf8.first else {
            throw UVURLError(.badURL, detail: "empty request target")
        }
        // One pass over contiguous bytes for the common, valid target; the
        // byte-naming checks below run only when something is wrong (every
        // request built from a URL comes here: this was a tenth of the
        // cost of making a data-task publisher).
        if !allBytes(of: target, satisfy: { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "#") }) {
            try validateBytes(target.utf8, place: "request target", code: .badURL) { _ in true }
            if target.utf8.contains(UInt8(ascii: "#")) {
                throw UVURLError(.badURL, detail: "fragment in request target")
            }
        }
        if target == "*" {
            if method != "OPTIONS" {
                throw UVURLError(.badURL, detail: "asterisk request target is only valid for OPTIONS")
            }
            return
        }
        if first != UInt8(ascii: "/") {
            throw UVURLError(.badURL, detail: "request target does not start with \"/\"")
        }
    }

    /// Checks the authority written as the `Host` field: a host name, an
    /// IPv4 address or a bracketed IPv6 literal, optionally `:port`. No user
    /// info, no whitespace, no control bytes.
    public static func validateAuthority(_ authority: String) throws(UVURLError) {
        if authority.isEmpty {
            throw UVURLError(.badURL, detail: "empty host")
        }
        if allBytes(of: authority, satisfy: isAuthorityByte) { return }
        try validateBytes(authority.utf8, place: "host", code: .badURL) { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                // unreserved, sub-delims, ":" for the port, brackets and "%"
                // for IPv6 literals.
                return "-._~!$&'()*+,;=:[]%".utf8.contains(byte)
            }
        }
    }

    /// Checks a field name: an RFC 9110 token.
    public static func validateFieldName(_ name: String) throws(UVURLError) {
        if name.isEmpty {
            throw UVURLError(.invalidRequest, detail: "empty header field name")
        }
        for byte in name.utf8 where !isTokenByte(byte) {
            if let byteName = namedForbiddenByte(byte) {
                throw UVURLError(.invalidRequest, detail: "\(byteName) in header field name \(quoted(name))")
            }
            throw UVURLError(.invalidRequest, detail: "header field name \(quoted(name)) is not an RFC 9110 token")
        }
    }

    /// Checks a field value: HTAB, SP, visible ASCII and obs-text (bytes
    /// 0x80-0xFF) only; CR, LF, NUL, DEL and other control bytes are
    /// refused. `name` appears in the error.
    public static func validateFieldValue(_ value: String, name: String) throws(UVURLError) {
        try validateFieldValue(value.utf8, name: name)
    }

    /// Checks a field value given as bytes; see `validateFieldValue(_:name:)`.
    public static func validateFieldValue(_ value: some Sequence<UInt8>, name: String) throws(UVURLError) {
        for byte in value where !isFieldValueByte(byte) {
            throw UVURLError(
                .invalidRequest,
                detail: "\(namedForbiddenByte(byte) ?? "invalid byte") in value of header field \(quoted(name))"
            )
        }
    }

    /// Refuses SP or HTAB at either end of a field value: RFC 9110 section
    /// 5.5 has no such value (a recipient strips the whitespace), so it
    /// would not arrive as written. `HTTPField(name:value:)` trims it, but
    /// `HTTPField(name:lenientValue:)` keeps it.
    internal static func validateFieldValueEnds(_ value: some BidirectionalCollection<UInt8>, name: String) throws(UVURLError) {
        guard let first = value.first, let last = value.last else { return }
        if first == 0x20 || first == 0x09 || last == 0x20 || last == 0x09 {
            throw UVURLError(
                .invalidRequest,
                detail: "leading or trailing whitespace in value of header field \(quoted(name))"
            )
        }
    }

    // MARK: Byte classes

    /// `tchar` from RFC 9110 section 5.6.2, as two bit masks over ASCII
    /// (constants, so the hot path reads no global).
    @inline(__always)
    internal static func isTokenByte(_ byte: UInt8) -> Bool {
        // ! # $ % & ' * + - . 0-9 (bytes 0x21-0x3F)
        let low: UInt64 = 0x03FF_6CFA_0000_0000
        // A-Z ^ _ ` a-z | ~ (bytes 0x40-0x7F)
        let high: UInt64 = 0x57FF_FFFF_C7FF_FFFE
        if byte < 64 { return (low >> UInt64(byte)) & 1 == 1 }
        if byte < 128 { return (high >> UInt64(byte - 64)) & 1 == 1 }
        return false
    }

    /// What an authority may contain (``validateAuthority(_:)``): letters,
    /// digits, unreserved, sub-delims, `:`, brackets and `%`, as bit masks.
    @inline(__always)
    internal static func isAuthorityByte(_ byte: UInt8) -> Bool {
        // ! $ % & ' ( ) * + , - . 0-9 : ; = (bytes 0x21-0x3F)
        let low: UInt64 = 0x2FFF_7FF2_0000_0000
        // A-Z [ ] _ a-z ~ (bytes 0x40-0x7F)
        let high: UInt64 = 0x47FF_FFFE_AFFF_FFFE
        if byte < 64 { return (low >> UInt64(byte)) & 1 == 1 }
        if byte < 128 { return (high >> UInt64(byte - 64)) & 1 == 1 }
        return false
    }

    /// Whether every byte of `text` satisfies `accept`, in one pass over
    /// its contiguous UTF-8 when it has some (iterating a `UTF8View` byte
    /// by byte costs several times more).
    @inline(__always)
    internal static func allBytes(of text: String, satisfy accept: (UInt8) -> Bool) -> Bool {
        if let result = text.utf8.withContiguousStorageIfAvailable({ buffer -> Bool in
            for byte in buffer where !accept(byte) { return false }
            return true
        }) {
            return result
        }
        for byte in text.utf8 where !accept(byte) { return false }
        return true
    }

    /// HTAB, SP, VCHAR and obs-text.
    @inline(__always)
    internal static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
    }

    /// A name for a byte that never belongs in a request line or field:
    /// `CR`, `LF`, `NUL`, `space`, `HTAB`, `DEL`, `control byte 0x07`,
    /// `non-ASCII byte 0xC3`; `nil` for visible ASCII.
    internal static func namedForbiddenByte(_ byte: UInt8) -> String? {
        switch byte {
        case 0x0D: "CR"
        case 0x0A: "LF"
        case 0x00: "NUL"
        case 0x20: "space"
        case 0x09: "HTAB"
        case 0x7F: "DEL"
        case 0x01..<0x20: "control byte \(hex(byte))"
        case 0x80...: "non-ASCII byte \(hex(byte))"
        default: nil
        }
    }

    /// Refuses the first byte that is not visible ASCII or that `allowed`
    /// rejects, naming it and `place`.
    private static func validateBytes(
        _ bytes: String.UTF8View,
        place: String,
        code: UVURLError.Code,
        allowed: (UInt8) -> Bool
    ) throws(UVURLError) {
        for byte in bytes {
            if let name = namedForbiddenByte(byte) {
                throw UVURLError(code, detail: "\(name) in \(place)")
            }
            if !allowed(byte) {
                throw UVURLError(code, detail: "\(quoted(String(decoding: [byte], as: UTF8.self))) in \(place)")
            }
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        return "0x" + String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]], as: UTF8.self)
    }

    /// The string in double quotes, with CR, LF, HTAB and NUL escaped so a
    /// message stays on one line.
    package static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\r": result += "\\r"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\0": result += "\\0"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

extension HTTPField {
    /// A field built from raw strings that refuses, rather than repairs,
    /// invalid input.
    ///
    /// `HTTPField(name:value:)` turns CR, LF and NUL into spaces and drops
    /// leading and trailing whitespace; this factory throws instead, so a
    /// value carrying a header injection attempt fails the request with a
    /// typed error and is never sent in any form.
    ///
    /// ```swift
    /// let ok = try HTTPField.strict(name: "X-Trace", value: "abc")
    /// print(ok)  // Prints: "X-Trace: abc"
    /// do {
    ///     _ = try HTTPField.strict(name: "X-Trace", value: "abc\r\nX-Admin: 1")
    /// } catch {
    ///     print(error.code) // Prints: "invalidRequest"
    /// }
    /// ```
    ///
    /// Threading: stateless; call from any thread.
    public static func strict(name: String, value: String) throws(UVURLError) -> HTTPField {
        try HTTPRequestValidation.validateFieldName(name)
        try HTTPRequestValidation.validateFieldValue(value, name: name)
        try HTTPRequestValidation.validateFieldValueEnds(value.utf8, name: name)
        guard let fieldName = HTTPField.Name(name) else {
            httpViolation("HTTPField.strict: a validated token was refused by HTTPField.Name (name \(HTTPRequestValidation.quoted(name)))")
        }
        return HTTPField(name: fieldName, value: value)
    }
}
