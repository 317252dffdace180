#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HTTPTypes

// Field lines, as bytes: name and value split and checked, obs-fold
// unfolded, trailer sections checked; the fields that decide framing, and
// `HTTPField` values built from the bytes without copies where possible.

extension HTTPResponseParser {
    /// Splits `name ":" OWS value OWS`, checking both parts.
    internal static func splitFieldLine(
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
    internal static func checkTrailers(_ bytes: UnsafeRawBufferPointer) throws(UVURLError) {
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
    internal static func unfold(
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
    internal static func indexOfCR(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        let found = memchr(bytes.baseAddress! + start, 0x0D, bytes.count - start)!
        return bytes.baseAddress!.distance(to: UnsafeRawPointer(found))
    }

    /// The fields that decide framing and connection reuse.
    internal enum FramingField {
        case contentLength, transferEncoding, connection, contentEncoding, other
    }

    @inline(__always)
    internal static func framingField(_ name: UnsafeRawBufferPointer) -> FramingField {
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
    internal static func fieldName(_ bytes: UnsafeRawBufferPointer) -> HTTPField.Name {
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
    internal static func field(_ name: HTTPField.Name, _ value: UnsafeRawBufferPointer) -> HTTPField {
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
