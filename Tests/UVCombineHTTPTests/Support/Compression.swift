import CZlib

/// The formats the tests compress their fixtures into with the system
/// zlib.
enum CompressionFormat: CaseIterable, CustomStringConvertible {
    /// RFC 1952 (`Content-Encoding: gzip`).
    case gzip
    /// RFC 1950, zlib-wrapped deflate (`Content-Encoding: deflate` as RFC
    /// 9110 means it).
    case zlib
    /// RFC 1951 raw deflate (what some servers send as `deflate`).
    case raw

    var windowBits: Int32 {
        switch self {
        case .gzip: 15 + 16
        case .zlib: 15
        case .raw: -15
        }
    }

    var description: String {
        switch self {
        case .gzip: "gzip"
        case .zlib: "zlib"
        case .raw: "raw deflate"
        }
    }
}

/// `bytes` compressed in `format` at `level` (one stream, one gzip member).
func compressed(_ bytes: [UInt8], _ format: CompressionFormat, level: Int32 = 6) -> [UInt8] {
    var stream = z_stream()
    precondition(czlib_deflate_init2(&stream, level, format.windowBits) == Z_OK)
    defer { deflateEnd(&stream) }
    var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 64)
    var input = bytes
    let written = input.withUnsafeMutableBufferPointer { inBuffer in
        output.withUnsafeMutableBufferPointer { outBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = uInt(inBuffer.count)
            stream.next_out = outBuffer.baseAddress
            stream.avail_out = uInt(outBuffer.count)
            precondition(deflate(&stream, Z_FINISH) == Z_STREAM_END)
            return outBuffer.count - Int(stream.avail_out)
        }
    }
    return Array(output[..<written])
}

/// Text that compresses well and has no short period: `count` bytes of
/// numbered lines.
func compressibleText(_ count: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count + 64)
    var line = 0
    while bytes.count < count {
        bytes += Array("line \(line): the quick brown fox jumps over the lazy dog\n".utf8)
        line += 1
    }
    return Array(bytes[..<count])
}

/// Bytes that do not compress (a fixed xorshift sequence).
func incompressibleBytes(_ count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
    var state = seed
    var bytes = [UInt8](repeating: 0, count: count)
    for index in 0..<count {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        bytes[index] = UInt8(truncatingIfNeeded: state)
    }
    return bytes
}
