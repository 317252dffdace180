/// A stream's request body waiting to be framed: the chunks the owner
/// appended, not copied, and how far nghttp2 has taken them.
///
/// nghttp2 asks for body bytes only while the peer's flow-control window
/// has room, so bytes wait here while the window is shut. The owner
/// appends the next chunk only after ``HTTP2Event/uploadWanted(_:)`` (the
/// buffer ran dry), which bounds what waits to about one chunk.
internal struct HTTP2UploadBuffer {
    /// Chunks not yet fully taken, oldest first; `head` indexes the first.
    private var chunks: [[UInt8]] = []
    private var head = 0
    /// Bytes of `chunks[head]` already taken.
    private var offset = 0
    /// The owner said there is no more.
    internal private(set) var isFinished = false
    /// nghttp2 was told `NGHTTP2_ERR_DEFERRED`: it must be resumed when
    /// bytes (or the end) arrive.
    internal var isDeferred = false
    /// Bytes appended and not yet taken.
    internal private(set) var bufferedCount = 0

    internal init(finished: Bool) {
        isFinished = finished
    }

    /// Adds a chunk (the array's storage is shared, not copied).
    internal mutating func append(_ chunk: [UInt8]) {
        guard !chunk.isEmpty else { return }
        if head > 0 && head == chunks.count {
            chunks.removeAll(keepingCapacity: true)
            head = 0
        }
        chunks.append(chunk)
        bufferedCount += chunk.count
    }

    /// No more chunks will come.
    internal mutating func finish() {
        isFinished = true
    }

    /// Copies up to `buffer.count` bytes into `buffer`; how many.
    internal mutating func take(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var written = 0
        while written < buffer.count, head < chunks.count {
            let chunk = chunks[head]
            let n = min(chunk.count - offset, buffer.count - written)
            chunk.withUnsafeBytes { source in
                (buffer.baseAddress! + written).copyMemory(from: source.baseAddress! + offset, byteCount: n)
            }
            written += n
            offset += n
            if offset == chunk.count {
                chunks[head] = []
                head += 1
                offset = 0
            }
        }
        bufferedCount -= written
        return written
    }
}
