import FuzzSupport
import UVCombineHTTPCore

/// A chunked body decoder written straight from RFC 9112 section 7.1, on the
/// whole body at once, with the parser's documented choices and limits:
///
/// ```text
/// chunked-body = *chunk last-chunk trailer-section CRLF
/// chunk        = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
/// chunk-size   = 1*HEXDIG                  (larger than Int.max: refused)
/// chunk-ext    = BWS ";" *field-value-byte (the parser reads no further)
/// last-chunk   = 1*("0") [ chunk-ext ] CRLF
/// trailer-section = *( field-line CRLF )   (checked, then dropped; a line
///                    starting with SP or HTAB after a field line is obs-fold)
/// ```
///
/// Limits: a chunk-size line longer than `maximumChunkLineLength` bytes
/// (without its CRLF), a trailer section over `maximumHeaderBytes` (with
/// every CRLF) or with more than `maximumHeaderCount` lines, a body over
/// `maximumBodyLength` (known at each chunk-size line), chunk sizes adding
/// up past `Int.max`. The whole trailer
/// section is found before its lines are checked.
struct ReferenceChunkedDecoder {
    /// What decoding gave: the body bytes delivered (up to a failure),
    /// whether the body ended, and the error code, if any.
    struct Outcome: Equatable, CustomStringConvertible {
        var body: [UInt8] = []
        var ended = false
        var error: UVURLError.Code? = nil

        var description: String {
            "body \(body.count) bytes \(quotedBytes(body.prefix(64))), ended \(ended), error \(String(describing: error))"
        }
    }

    let configuration: HTTPResponseParser.Configuration

    func decode(_ bytes: [UInt8]) -> Outcome {
        var outcome = Outcome()
        var index = 0
        let count = bytes.count
        var bodyLength = 0

        func failed(_ code: UVURLError.Code) -> Outcome {
            var result = outcome
            result.error = code
            return result
        }
        let truncated = UVURLError.Code.networkConnectionLost
        let malformed = UVURLError.Code.badServerResponse

        while true {
            // chunk-size [ chunk-ext ] CRLF
            enum LineState { case size, whitespace, extensions }
            var state = LineState.size
            var size = 0
            var digits = 0
            var lineLength = 0
            while true {
                guard index < count else { return failed(truncated) }
                let byte = bytes[index]
                index += 1
                if byte == 0x0D {
                    if digits == 0 || state == .whitespace { return failed(malformed) }
                    guard index < count else { return failed(truncated) }
                    guard bytes[index] == 0x0A else { return failed(malformed) }
                    index += 1
                    break
                }
                if byte == 0x0A { return failed(malformed) }
                lineLength += 1
                if lineLength > configuration.maximumChunkLineLength { return failed(malformed) }
                switch state {
                case .size:
                    if let digit = HTTPGrammar.hexDigit(byte) {
                        let (times16, o1) = size.multipliedReportingOverflow(by: 16)
                        let (sum, o2) = times16.addingReportingOverflow(digit)
                        if o1 || o2 { return failed(malformed) }
                        size = sum
                        digits += 1
                    } else if digits > 0 && byte == UInt8(ascii: ";") {
                        state = .extensions
                    } else if digits > 0 && HTTPGrammar.isOWS(byte) {
                        state = .whitespace
                    } else {
                        return failed(malformed)
                    }
                case .whitespace:
                    if byte == UInt8(ascii: ";") {
                        state = .extensions
                    } else if !HTTPGrammar.isOWS(byte) {
                        return failed(malformed)
                    }
                case .extensions:
                    if !HTTPGrammar.isFieldValueByte(byte) { return failed(malformed) }
                }
            }
            if size == 0 { break }

            // The sizes so far add up past Int.max: past any maximum, else
            // malformed.
            let (total, overflowed) = bodyLength.addingReportingOverflow(size)
            if let maximum = configuration.maximumBodyLength, overflowed || total > maximum {
                return failed(.dataLengthExceedsMaximum)
            }
            if overflowed { return failed(malformed) }
            bodyLength = total
            let available = min(size, count - index)
            outcome.body += bytes[index..<index + available]
            index += available
            if available < size { return failed(truncated) }
            for expected: UInt8 in [0x0D, 0x0A] {
                guard index < count else { return failed(truncated) }
                guard bytes[index] == expected else { return failed(malformed) }
                index += 1
            }
        }

        // The trailer section: find its end, then check its lines.
        var lines: [[UInt8]] = []
        var line: [UInt8] = []
        var sectionBytes = 0
        while true {
            guard index < count else { return failed(truncated) }
            let byte = bytes[index]
            index += 1
            sectionBytes += 1
            if sectionBytes > configuration.maximumHeaderBytes { return failed(malformed) }
            if byte == 0x0A { return failed(malformed) }
            if byte != 0x0D {
                line.append(byte)
                continue
            }
            guard index < count else { return failed(truncated) }
            let next = bytes[index]
            index += 1
            sectionBytes += 1
            if sectionBytes > configuration.maximumHeaderBytes { return failed(malformed) }
            if next != 0x0A { return failed(malformed) }
            if line.isEmpty { break }
            lines.append(line)
            line = []
            if lines.count > configuration.maximumHeaderCount { return failed(malformed) }
        }
        for (number, line) in lines.enumerated() {
            // A line that starts with whitespace continues the field above
            // it (obs-fold, RFC 9112 section 5.2: a user agent unfolds it);
            // before the first field there is nothing to continue.
            if HTTPGrammar.isOWS(line[0]) {
                if number == 0 { return failed(malformed) }
                let content = line.drop(while: HTTPGrammar.isOWS).reversed().drop(while: HTTPGrammar.isOWS)
                guard content.allSatisfy(HTTPGrammar.isFieldValueByte) else { return failed(malformed) }
                continue
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return failed(malformed) }
            guard HTTPGrammar.isToken(line[..<colon]) else { return failed(malformed) }
            let value = line[(colon + 1)...].drop(while: HTTPGrammar.isOWS).reversed().drop(while: HTTPGrammar.isOWS)
            guard value.allSatisfy(HTTPGrammar.isFieldValueByte) else { return failed(malformed) }
        }
        outcome.ended = true
        // Bytes after the body while no other request is out.
        if index < count { outcome.error = malformed }
        return outcome
    }
}
