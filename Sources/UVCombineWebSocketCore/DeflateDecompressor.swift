internal import CUVCombineLazyLibraries

/// Inflates incoming compressed messages for permessage-deflate (RFC
/// 7692, 7.2.2): frame payloads as they arrive, then the `00 00 FF FF`
/// the sender removed. Output beyond the message size limit fails with
/// 1009 as soon as it is produced, so a deflate bomb (a few KiB that
/// inflate to gigabytes) costs at most the limit in memory; data zlib
/// rejects fails with 1007.
///
/// A 15-bit window inflates whatever window the server used.
///
/// ```swift
/// let inflater = try DeflateDecompressor(noContextTakeover: false)
/// var message: [UInt8] = []
/// try inflater.inflate(payload, into: &message, limit: 1 << 20)
/// try inflater.finishMessage(into: &message, limit: 1 << 20)
/// ```
///
/// Threading: one thread at a time (the loop's).
public final class DeflateDecompressor {
    private let stream: UnsafeMutablePointer<z_stream>
    /// zlib's functions (``loadZlib()``).
    private let zlib: cuvc_zlib_functions
    private let noContextTakeover: Bool
    /// zlib's output, copied into the message after each call.
    private let scratch: UnsafeMutablePointer<Bytef>
    private static let scratchSize = 64 * 1024
    private static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]
    /// Whether the message in progress had compressed bytes: an empty
    /// payload is an empty message (the tail alone is not DEFLATE).
    private var hasInput = false

    /// - Throws: 1011 when zlib cannot be loaded or cannot start.
    public init(noContextTakeover: Bool) throws(WebSocketProtocolError) {
        zlib = try loadZlib()
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        self.noContextTakeover = noContextTakeover
        scratch = UnsafeMutablePointer<Bytef>.allocate(capacity: Self.scratchSize)
        let status = cuvc_inflate_init2(zlib.inflateInit2_, stream, -15)
        guard status == Z_OK else {
            stream.deallocate()
            scratch.deallocate()
            throw WebSocketProtocolError(.internalServerError, "inflateInit2 failed (\(status))")
        }
    }

    deinit {
        _ = zlib.inflateEnd(stream)
        stream.deallocate()
        scratch.deallocate()
    }

    /// Inflates one frame's payload, appending to `message`.
    ///
    /// - Throws: 1009 when `message` would exceed `limit` bytes; 1007 for
    ///   data that is not DEFLATE.
    public func inflate(_ input: UnsafeRawBufferPointer, into message: inout [UInt8], limit: Int) throws(WebSocketProtocolError) {
        guard input.count > 0 else { return }
        hasInput = true
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress!.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        stream.pointee.next_out = scratch
        stream.pointee.avail_out = uInt(Self.scratchSize)
        defer {
            stream.pointee.next_in = nil
            stream.pointee.next_out = nil
        }
        while true {
            // Into the scratch buffer, then appended: no zero-filling of
            // room in the message, and the limit checked before growing it.
            let status = zlib.inflate(stream, Z_SYNC_FLUSH)
            let produced = Self.scratchSize - Int(stream.pointee.avail_out)
            stream.pointee.next_out = scratch
            stream.pointee.avail_out = uInt(Self.scratchSize)
            switch status {
            case Z_OK, Z_BUF_ERROR:
                break
            case Z_STREAM_END:
                // The sender ended the DEFLATE stream (a final block);
                // what follows starts a new one.
                _ = zlib.inflateReset(stream)
            default:
                let reason = stream.pointee.msg.map { String(cString: $0) } ?? "status \(status)"
                throw WebSocketProtocolError(.invalidFramePayloadData, "the compressed message is not valid DEFLATE: \(reason)")
            }
            if message.count + produced > limit {
                throw WebSocketProtocolError(.messageTooBig, "the inflated message exceeds the limit of \(limit) bytes")
            }
            message.appendRaw(UnsafeRawBufferPointer(start: scratch, count: produced))
            // Done when the input is consumed and zlib had room left over.
            if stream.pointee.avail_in == 0 && produced < Self.scratchSize { return }
            if status == Z_BUF_ERROR && produced == 0 { return }
        }
    }

    /// Inflates the message's end (the `00 00 FF FF` the sender removed),
    /// and resets the window when the server does not take it over.
    public func finishMessage(into message: inout [UInt8], limit: Int) throws(WebSocketProtocolError) {
        guard hasInput else { return }
        var failure: WebSocketProtocolError?
        Self.tail.withUnsafeBytes { raw in
            do throws(WebSocketProtocolError) { try inflate(raw, into: &message, limit: limit) } catch { failure = error }
        }
        // After the tail, which `inflate` counted as input.
        hasInput = false
        if let failure { throw failure }
        if noContextTakeover { _ = zlib.inflateReset(stream) }
    }

    /// Forgets the message in progress (after a failure).
    public func reset() {
        hasInput = false
        _ = zlib.inflateReset(stream)
    }
}
