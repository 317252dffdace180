internal import CUVCombineLazyLibraries

/// Compresses outgoing messages for permessage-deflate (RFC 7692, 7.2.1):
/// raw DEFLATE flushed with `Z_SYNC_FLUSH`, the trailing `00 00 FF FF`
/// removed. With context takeover the window carries over between
/// messages; without it the stream is reset after each.
///
/// ```swift
/// let compressor = try DeflateCompressor(windowBits: 15, noContextTakeover: false)
/// let compressed = try compressor.compress(Array(repeating: 0x61, count: 1000))
/// ```
///
/// Threading: one thread at a time (the loop's).
public final class DeflateCompressor {
    private let stream: UnsafeMutablePointer<z_stream>
    /// zlib's functions (``loadZlib()``).
    private let zlib: cuvc_zlib_functions
    private let noContextTakeover: Bool
    /// zlib's output, copied into the result after each call.
    private let scratch: UnsafeMutablePointer<Bytef>
    private static let scratchSize = 64 * 1024

    /// - Throws: 1011 when zlib cannot be loaded or cannot start.
    public init(windowBits: Int, noContextTakeover: Bool) throws(WebSocketProtocolError) {
        zlib = try loadZlib()
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        self.noContextTakeover = noContextTakeover
        scratch = UnsafeMutablePointer<Bytef>.allocate(capacity: Self.scratchSize)
        // Negative: raw DEFLATE, no zlib header.
        let status = cuvc_deflate_init2(zlib.deflateInit2_, stream, Z_DEFAULT_COMPRESSION, -Int32(max(9, windowBits)))
        guard status == Z_OK else {
            stream.deallocate()
            scratch.deallocate()
            throw WebSocketProtocolError(.internalServerError, "deflateInit2 failed (\(status))")
        }
    }

    deinit {
        _ = zlib.deflateEnd(stream)
        stream.deallocate()
        scratch.deallocate()
    }

    /// The compressed form of `message`.
    public func compress(_ message: UnsafeRawBufferPointer) throws(WebSocketProtocolError) -> [UInt8] {
        // RFC 7692, 7.2.3.6: an empty message is one 0x00 byte (with the
        // removed tail, an empty stored block). Not through zlib: a second
        // Z_SYNC_FLUSH without input in between is Z_BUF_ERROR and
        // produces nothing, which would not inflate.
        guard message.count > 0 else { return [0x00] }
        var output: [UInt8] = []
        output.reserveCapacity(message.count / 2 + 64)
        stream.pointee.next_in = UnsafeMutablePointer(mutating: message.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(message.count)
        while true {
            // Into the scratch buffer, then appended (no zero-filled room).
            stream.pointee.next_out = scratch
            stream.pointee.avail_out = uInt(Self.scratchSize)
            let status = zlib.deflate(stream, Z_SYNC_FLUSH)
            let produced = Self.scratchSize - Int(stream.pointee.avail_out)
            guard status == Z_OK || status == Z_BUF_ERROR else {
                throw WebSocketProtocolError(.internalServerError, "deflate failed (\(status))")
            }
            output.appendRaw(UnsafeRawBufferPointer(start: scratch, count: produced))
            // Done when zlib consumed everything and had room left over.
            if stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0 { break }
        }
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        if output.count >= 4 && output.suffix(4).elementsEqual([0x00, 0x00, 0xFF, 0xFF]) {
            output.removeLast(4)
        }
        if noContextTakeover { _ = zlib.deflateReset(stream) }
        return output
    }

    /// The compressed form of `message`.
    public func compress(_ message: [UInt8]) throws(WebSocketProtocolError) -> [UInt8] {
        let result = message.withUnsafeBytes { raw in Result { () throws(WebSocketProtocolError) in try compress(raw) } }
        return try result.get()
    }
}
