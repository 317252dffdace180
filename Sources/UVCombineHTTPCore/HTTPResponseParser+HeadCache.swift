#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The parser's head cache: a keep-alive server sends the same head again
// and again, so a head equal byte for byte to the last one is not parsed
// twice. The cache's stored properties are in HTTPResponseParser.swift.

extension HTTPResponseParser {
    /// The cached head's parse when `input` at `offset` starts with the
    /// cached head's bytes (so its head is exactly those bytes: the cached
    /// head has its only empty line at its end), in a fresh section, for a
    /// request of the same kind (HEAD or not: that decides the framing).
    /// Limits need no new check: the same bytes passed them.
    @inline(__always)
    internal func reuseCachedHead(_ input: UnsafeRawBufferPointer, at offset: Int) -> ParsedHead? {
        let length = cachedHead.count
        guard length > 0, sectionBytes == 0, headBuffer.isEmpty, requestIsHead == cachedHeadIsForHEAD,
              input.count - offset >= length, let cached = cachedParsedHead else { return nil }
        let equal = cachedHead.withUnsafeBytes { head in
            memcmp(input.baseAddress! + offset, head.baseAddress!, length) == 0
        }
        return equal ? cached : nil
    }

    /// Remembers a final head parsed from one chunk (up to 4 KiB of it).
    internal mutating func cache(_ head: UnsafeRawBufferPointer, _ parsed: ParsedHead) {
        guard head.count <= 4096 else {
            cachedHead.removeAll(keepingCapacity: true)
            cachedParsedHead = nil
            return
        }
        cachedHead.removeAll(keepingCapacity: true)
        cachedHead.append(contentsOf: head)
        cachedParsedHead = parsed
        cachedHeadIsForHEAD = requestIsHead
    }
}
