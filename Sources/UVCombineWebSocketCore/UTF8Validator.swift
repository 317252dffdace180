/// An incremental UTF-8 validator (RFC 3629): fed a text message's bytes
/// as they arrive, frame by frame, it fails as soon as a byte cannot
/// continue valid UTF-8, even when the sequence is split between frames
/// (RFC 6455, 8.1: a text message that is not UTF-8 fails the connection
/// with 1007 "as soon as" it is seen).
///
/// Overlong forms, surrogates (U+D800-U+DFFF) and code points above
/// U+10FFFF are invalid: the second byte's range is narrowed for E0, ED,
/// F0 and F4, as the table in RFC 3629, section 4 says.
///
/// ```swift
/// var validator = UTF8Validator()
/// print(validator.validate([0xE2, 0x82])) // Prints: "true" (incomplete so far)
/// print(validator.validate([0xAC]), validator.isComplete) // Prints: "true true"
/// ```
///
/// Threading: a value type.
public struct UTF8Validator: Sendable {
    /// Continuation bytes still expected.
    private var needed = 0
    /// The allowed range of the next continuation byte.
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// A validator at the start of a message.
    public init() {}

    /// Whether no sequence is left open: at the end of a message it must be.
    public var isComplete: Bool { needed == 0 }

    /// Forgets everything (a new message).
    public mutating func reset() {
        self = UTF8Validator()
    }

    /// Checks `bytes` after the bytes seen so far; false at the first
    /// byte that cannot be valid.
    public mutating func validate(_ bytes: some Collection<UInt8>) -> Bool {
        if let result = bytes.withContiguousStorageIfAvailable({ validate(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return validate(Array(bytes))
    }

    /// Checks `bytes` after the bytes seen so far.
    ///
    /// `@_optimize(speed)`: a byte loop over every received text byte,
    /// optimised even in debug builds (where a 16 MiB message otherwise
    /// takes seconds, and the tests would be slow).
    @_optimize(speed)
    public mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            // ASCII runs, eight bytes at a time, outside a sequence.
            if needed == 0 {
                while index + 8 <= count && bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                    index += 8
                }
                guard index < count else { break }
            }
            let byte = bytes[index]
            index += 1
            if needed == 0 {
                // Plain comparisons rather than range patterns, which call
                // the generic `~=` unoptimised in debug builds.
                if byte < 0x80 {
                    continue
                } else if byte >= 0xC2 && byte <= 0xDF {
                    needed = 1
                } else if byte >= 0xE0 && byte <= 0xEF {
                    needed = 2
                    if byte == 0xE0 { lower = 0xA0 } else if byte == 0xED { upper = 0x9F }
                } else if byte >= 0xF0 && byte <= 0xF4 {
                    needed = 3
                    if byte == 0xF0 { lower = 0x90 } else if byte == 0xF4 { upper = 0x8F }
                } else {
                    return false
                }
            } else {
                guard byte >= lower && byte <= upper else { return false }
                lower = 0x80
                upper = 0xBF
                needed -= 1
            }
        }
        return true
    }
}
