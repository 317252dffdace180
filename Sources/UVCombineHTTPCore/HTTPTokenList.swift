/// Small byte-level helpers shared by the writer and the parser: comma
/// separated token lists (`Connection: keep-alive, Upgrade`) and decimal
/// numbers (`Content-Length: 42`), read without creating strings.
package enum HTTPTokenList {
    /// The result of reading an unsigned decimal number.
    package enum Decimal: Equatable {
        case value(Int)
        /// Not `1*DIGIT`: empty, a sign, a space, a letter.
        case invalid
        /// Digits only, but larger than `Int.max`.
        case overflow
    }

    /// Reads `1*DIGIT` exactly (no sign, no whitespace).
    package static func decimal(_ bytes: UnsafeRawBufferPointer) -> Decimal {
        if bytes.isEmpty { return .invalid }
        var value = 0
        var overflowed = false
        for byte in bytes {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return .invalid }
            if overflowed { continue }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int(byte &- UInt8(ascii: "0")))
            if o1 || o2 { overflowed = true } else { value = sum }
        }
        return overflowed ? .overflow : .value(value)
    }

    /// Reads `1*DIGIT`, `nil` when invalid or too large.
    package static func parseDecimal(_ bytes: UnsafeRawBufferPointer) -> Int? {
        if case .value(let value) = decimal(bytes) { return value }
        return nil
    }

    /// Calls `body` with each element of a comma-separated list, with
    /// optional whitespace around it removed; empty elements are skipped,
    /// as RFC 9110 section 5.6.1 asks of recipients. Stops early when
    /// `body` returns `false`.
    @inline(__always)
    package static func forEachElement(
        _ bytes: UnsafeRawBufferPointer,
        _ body: (UnsafeRawBufferPointer) -> Bool
    ) {
        var start = 0
        let count = bytes.count
        while start <= count {
            var end = start
            while end < count && bytes[end] != UInt8(ascii: ",") { end += 1 }
            var lower = start
            var upper = end
            while lower < upper && isOWS(bytes[lower]) { lower += 1 }
            while upper > lower && isOWS(bytes[upper - 1]) { upper -= 1 }
            if upper > lower {
                if !body(UnsafeRawBufferPointer(rebasing: bytes[lower..<upper])) { return }
            }
            start = end + 1
        }
    }

    /// Whether a comma-separated list contains `token` (ASCII,
    /// case-insensitive).
    package static func contains(_ bytes: UnsafeRawBufferPointer, _ token: StaticString) -> Bool {
        var found = false
        forEachElement(bytes) { element in
            if equalsIgnoringCase(element, token) {
                found = true
                return false
            }
            return true
        }
        return found
    }

    /// As `contains(_:_:)`, for a field value's bytes.
    package static func contains(_ bytes: UnsafeBufferPointer<UInt8>, _ token: StaticString) -> Bool {
        contains(UnsafeRawBufferPointer(bytes), token)
    }

    /// ASCII case-insensitive equality with a lowercase static string.
    @inline(__always)
    package static func equalsIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        let count = lowercase.utf8CodeUnitCount
        guard bytes.count == count else { return false }
        let expected = lowercase.utf8Start
        for index in 0..<count where lowercased(bytes[index]) != expected[index] {
            return false
        }
        return true
    }

    /// The ASCII lowercase form of a byte.
    @inline(__always)
    package static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// SP or HTAB.
    @inline(__always)
    package static func isOWS(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }
}
