extension Array where Element == UInt8 {
    /// Appends `bytes` with one copy. Why: `append(contentsOf:)` with an
    /// `UnsafeRawBufferPointer` (a sequence without contiguous typed
    /// storage) copies byte by byte through the generic sequence path, tens
    /// of times slower on a 16 MiB message; typed, the standard library
    /// copies the block at once.
    @inline(__always)
    internal mutating func appendRaw(_ bytes: UnsafeRawBufferPointer) {
        append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
    }
}
