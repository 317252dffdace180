internal import CZlib

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
package final class DeflateCompressor {
    private let stream: UnsafeMutablePointer<z_stream>
    private let noContextTakeover: Bool

    /// - Throws: 1011 when zlib cannot start.
    package init(windowBits: Int, noContextTakeover: Bool) throws(WebSocketProtocolError) {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        self.noContextTakeover = noContextTakeover
        // Negative: raw DEFLATE, no zlib header.
        let status = czlib_deflate_init2(stream, Z_DEFAULT_COMPRESSION, -Int32(max(9, windowBits)))
        guard status == Z_OK else {
            stream.deallocate()
            throw WebSocketProtocolError(.internalServerError, "deflateInit2 failed (\(status))")
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    /// The compressed form of `message`.
    package func compress(_ message: UnsafeRawBufferPointer) throws(WebSocketProtocolError) -> [UInt8] {
        // RFC 7692, 7.2.3.6: an empty message is one 0x00 byte (with the
        // removed tail, an empty stored block). Not through zlib: a second
        // Z_SYNC_FLUSH without input in between is Z_BUF_ERROR and
        // produces nothing, which would not inflate.
        guard message.count > 0 else { return [0x00] }
        var output = [UInt8](repeating: 0, count: max(64, message.count / 2 + 64))
        var produced = 0
        stream.pointee.next_in = UnsafeMutablePointer(mutating: message.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(message.count)
        while true {
            if produced == output.count { output += [UInt8](repeating: 0, count: output.count) }
            let room = output.count - produced
            let status = output.withUnsafeMutableBytes { raw -> Int32 in
                stream.pointee.next_out = (raw.baseAddress! + produced).assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = uInt(room)
                return deflate(stream, Z_SYNC_FLUSH)
            }
            produced += room - Int(stream.pointee.avail_out)
            guard status == Z_OK || status == Z_BUF_ERROR else {
                throw WebSocketProtocolError(.internalServerError, "deflate failed (\(status))")
            }
            // Done when zlib consumed everything and had room left over.
            if stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0 { break }
        }
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        output.removeSubrange(produced...)
        if output.count >= 4 && output.suffix(4).elementsEqual([0x00, 0x00, 0xFF, 0xFF]) {
            output.removeLast(4)
        }
        if noContextTakeover { deflateReset(stream) }
        return output
    }

    /// The compressed form of `message`.
    package func compress(_ message: [UInt8]) throws(WebSocketProtocolError) -> [UInt8] {
        let result = message.withUnsafeBytes { raw in Result { () throws(WebSocketProtocolError) in try compress(raw) } }
        return try result.get()
    }
}
