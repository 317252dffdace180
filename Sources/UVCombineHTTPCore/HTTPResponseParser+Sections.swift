// The scan of a head or trailer section, byte by byte across chunks: line
// endings (CRLF only), the empty line that ends the section, and the size
// limits. What the lines say is parsed afterwards, in one piece
// (HTTPResponseParser+Head.swift).

extension HTTPResponseParser {
    /// Starts the scan of a head (or, after the last chunk, a trailer
    /// section).
    internal mutating func beginSection() {
        sectionBytes = 0
        lineLength = 0
        lineCount = 0
        lastWasCR = false
    }

    /// Scans for the empty line that ends a head or trailer section,
    /// checking line endings and limits as it goes. Returns the offset just
    /// past the section, or `nil` when `input` ends first (`offset` is then
    /// `input.count`).
    internal mutating func scanSection(
        _ input: UnsafeRawBufferPointer,
        from offset: inout Int,
        isTrailer: Bool
    ) throws(UVURLError) -> Int? {
        let count = input.count
        guard offset < count, let base = input.baseAddress else { return nil }
        let maximumBytes = configuration.maximumHeaderBytes
        let maximumStatusLine = configuration.maximumStatusLineLength
        while offset < count {
            if !lastWasCR {
                // The run of ordinary bytes up to the next CR or LF.
                let start = offset
                while offset < count {
                    let byte = base.load(fromByteOffset: offset, as: UInt8.self)
                    if byte == 0x0D || byte == 0x0A { break }
                    offset += 1
                }
                let run = offset - start
                lineLength += run
                sectionBytes += run
                try checkSectionLimits(isTrailer: isTrailer, maximumBytes: maximumBytes, maximumStatusLine: maximumStatusLine)
                if offset == count { return nil }
                let byte = base.load(fromByteOffset: offset, as: UInt8.self)
                offset += 1
                sectionBytes += 1
                try checkSectionLimits(isTrailer: isTrailer, maximumBytes: maximumBytes, maximumStatusLine: maximumStatusLine)
                if byte == 0x0A { throw .badResponse("bare LF in header section") }
                lastWasCR = true
                continue
            }
            let byte = base.load(fromByteOffset: offset, as: UInt8.self)
            offset += 1
            sectionBytes += 1
            try checkSectionLimits(isTrailer: isTrailer, maximumBytes: maximumBytes, maximumStatusLine: maximumStatusLine)
            guard byte == 0x0A else { throw .badResponse("CR not followed by LF in header section") }
            lastWasCR = false
            if lineLength == 0 {
                if lineCount == 0 && !isTrailer {
                    throw .badResponse("empty line before the status line")
                }
                return offset
            }
            lineCount += 1
            lineLength = 0
            // The status line is line 1 of a head; trailers have none.
            let fields = isTrailer ? lineCount : lineCount - 1
            if fields > configuration.maximumHeaderCount {
                throw .badResponse("more than \(configuration.maximumHeaderCount) header fields")
            }
        }
        return nil
    }

    /// Throws when the section or the status line grew past its limit,
    /// naming the limit a byte-by-byte scan would have crossed first.
    @inline(__always)
    private func checkSectionLimits(isTrailer: Bool, maximumBytes: Int, maximumStatusLine: Int) throws(UVURLError) {
        let statusLineTooLong = lineCount == 0 && !isTrailer && lineLength > maximumStatusLine
        if statusLineTooLong && maximumStatusLine < maximumBytes {
            throw .badResponse("status line exceeds \(maximumStatusLine) bytes")
        }
        if sectionBytes > maximumBytes {
            throw .badResponse(isTrailer
                ? "trailer section exceeds \(maximumBytes) bytes" : "header section exceeds \(maximumBytes) bytes")
        }
        if statusLineTooLong {
            throw .badResponse("status line exceeds \(maximumStatusLine) bytes")
        }
    }
}
