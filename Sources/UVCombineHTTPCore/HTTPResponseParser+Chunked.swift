// The chunked transfer coding (RFC 9112 section 7.1): the chunk-size line,
// chunk by chunk across input chunks. The chunk data and its CRLF are
// states of the driver (`step` in HTTPResponseParser.swift); the trailer
// section is scanned as a head is (HTTPResponseParser+Sections.swift).

extension HTTPResponseParser {
    /// Starts reading a chunk-size line (after the head, and after each
    /// chunk's data and CRLF).
    internal mutating func beginChunkLine() {
        chunkSize = 0
        chunkDigits = 0
        chunkLineLength = 0
        phase = .chunkSize
    }

    /// Scans a chunk-size line: `1*HEXDIG *( BWS ";" ext ) CRLF`.
    internal mutating func scanChunkLine(_ input: UnsafeRawBufferPointer, from offset: inout Int) throws(UVURLError) {
        let count = input.count
        while offset < count {
            let byte = input[offset]
            offset += 1
            if phase == .chunkSizeLF {
                guard byte == 0x0A else { throw .badResponse("CR not followed by LF in chunk-size line") }
                try endChunkLine()
                return
            }
            if byte == 0x0D {
                if chunkDigits == 0 || phase == .chunkSizeWhitespace {
                    throw .badResponse("malformed chunk size")
                }
                phase = .chunkSizeLF
                continue
            }
            if byte == 0x0A { throw .badResponse("bare LF in chunk-size line") }
            chunkLineLength += 1
            if chunkLineLength > configuration.maximumChunkLineLength {
                throw .badResponse("chunk-size line exceeds \(configuration.maximumChunkLineLength) bytes")
            }
            switch phase {
            case .chunkSize:
                if let digit = Self.hexValue(byte) {
                    if chunkSize > (Int.max - digit) >> 4 { throw .badResponse("chunk size overflows") }
                    chunkSize = chunkSize << 4 | digit
                    chunkDigits += 1
                } else if chunkDigits > 0 && byte == UInt8(ascii: ";") {
                    phase = .chunkExtension
                } else if chunkDigits > 0 && HTTPTokenList.isOWS(byte) {
                    phase = .chunkSizeWhitespace
                } else {
                    throw .badResponse("malformed chunk size")
                }
            case .chunkSizeWhitespace:
                if byte == UInt8(ascii: ";") {
                    phase = .chunkExtension
                } else if !HTTPTokenList.isOWS(byte) {
                    throw .badResponse("malformed chunk size")
                }
            case .chunkExtension:
                if !HTTPRequestValidation.isFieldValueByte(byte) {
                    throw .badResponse("invalid byte in chunk extension")
                }
            default:
                httpViolation("HTTPResponseParser.scanChunkLine: only inside a chunk-size line, but the parser is in state \(phase)")
            }
        }
    }

    /// A complete chunk-size line: size 0 starts the trailer section,
    /// any other size that chunk's data.
    private mutating func endChunkLine() throws(UVURLError) {
        if chunkSize == 0 {
            beginSection()
            phase = .trailers
            return
        }
        try addBody(chunkSize)
        remaining = chunkSize
        phase = .chunkData
    }

    /// The value of a hex digit, or nil.
    @inline(__always)
    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte &- UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte &- UInt8(ascii: "a") &+ 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte &- UInt8(ascii: "A") &+ 10)
        default: nil
        }
    }
}
