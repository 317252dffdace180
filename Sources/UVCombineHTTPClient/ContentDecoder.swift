internal import CUVCombineLazyLibraries
import HTTPTypes
import UVCombineHTTPCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Undoes a response body's content coding (`Content-Encoding: gzip` or
/// `deflate`) as the body arrives, through the system zlib: encoded runs
/// go in as the parser hands them out, decoded bytes come out into a
/// buffer the caller owns and reuses. Nothing is buffered beyond zlib's
/// own state and, while the consumer is paused, the encoded rest of one
/// run (``pendingInput``).
///
/// What is accepted, as browsers and curl accept it:
/// - `gzip` (and its alias `x-gzip`, RFC 9110 section 8.4.1.3): one or more
///   gzip members one after the other (RFC 1952 section 2.2: a
///   multi-member file decodes to the members' concatenation); a
///   zlib-wrapped stream labelled `gzip` is decoded too. Bytes after the
///   last member that do not start another member are ignored, as
///   gzip(1) ignores trailing garbage.
/// - `deflate`: the zlib format RFC 9110 names, and raw deflate (RFC 1951)
///   as some servers send it; the first two bytes say which (a valid
///   zlib header or not), as browsers decide.
/// - An empty body: nothing to decode, no error (a `Content-Encoding` on a
///   body of length zero is common).
///
/// A stream that is corrupt, or that ends before its last block and
/// trailer, fails with ``UVURLError/Code/cannotDecodeContentData``
/// (`URLError`'s code for this), with zlib's message in the detail.
///
/// zlib (libz.so.1) is loaded with the first encoded byte the process
/// decodes, not when it starts (Sources/CUVCombineLazyLibraries; issue 30);
/// without it the body fails with `.cannotDecodeContentData` and the
/// detail `"cannot load zlib: libz.so.1: cannot open shared object file:
/// No such file or directory"`.
///
/// ```swift
/// let decoder = ContentDecoder(coding: .gzip)
/// var input = UnsafeRawBufferPointer(encodedRun)
/// while true {
///     let count = try decoder.decode(&input, into: buffer)
///     consume(buffer[..<count])
///     if input.isEmpty && count < buffer.count { break }
/// }
/// try decoder.finish()  // at the end of the body
/// ```
///
/// Threading: not thread-safe; the session uses one per response, on its
/// loop thread.
package final class ContentDecoder {
    /// A content coding this decoder undoes.
    package enum Coding: Sendable, Equatable {
        /// `gzip` or `x-gzip`.
        case gzip
        /// `deflate`: zlib-wrapped or raw.
        case deflate
    }

    private enum Phase {
        /// No encoded byte yet (zlib not initialised).
        case idle
        /// `deflate`: one byte seen, which cannot tell zlib from raw.
        case sniffing(UInt8)
        /// zlib is decoding a stream (a gzip member).
        case inflating
        /// A stream (a gzip member) ended; another gzip member may follow.
        case memberEnded
        /// Bytes that do not start a member followed the last one: they and
        /// all later bytes are ignored.
        case trailing
    }

    /// The coding undone.
    package private(set) var coding: Coding
    private var phase = Phase.idle
    /// Allocated with the first encoded byte: zlib keeps a pointer back to
    /// its stream, so the stream needs a fixed address.
    private var stream: UnsafeMutablePointer<z_stream>?
    /// Whether `inflateInit2` succeeded (and `inflateEnd` is owed).
    private var isInitialised = false
    /// zlib's functions, loaded with the first encoded byte.
    private var zlib: cuvc_zlib_functions?
    /// The library they come from: nil for the process's zlib
    /// (`cuvc_zlib_load`, loaded once), a name for tests.
    private let zlibLibrary: String?
    /// Encoded bytes not decoded yet because the consumer paused; the
    /// session drains them (and zlib's pending output) before the parser
    /// runs again.
    package var pendingInput: [UInt8] = []
    /// Whether the decoder may hold output for a paused consumer: the
    /// session calls ``decode(_:into:)`` (with ``pendingInput``) before it
    /// reads on.
    package var needsDrain = false

    /// A decoder for `coding`. Allocates nothing else (and loads no zlib)
    /// until the first encoded byte.
    package init(coding: Coding) {
        self.coding = coding
        zlibLibrary = nil
    }

    /// A decoder whose zlib is loaded anew from the library named, not the
    /// process's libz.so.1: for tests of a missing or wrong library.
    package init(coding: Coding, zlibLibrary: String) {
        self.coding = coding
        self.zlibLibrary = zlibLibrary
    }

    /// Makes the decoder ready for a new body in `coding`, keeping zlib's
    /// state and window (`inflateReset2` instead of a new `inflateInit2`:
    /// the session reuses one decoder across responses, so a compressed
    /// response on a keep-alive connection allocates no zlib state).
    package func reset(coding: Coding) {
        self.coding = coding
        phase = .idle
        pendingInput.removeAll(keepingCapacity: true)
        needsDrain = false
    }

    deinit {
        if let stream {
            if isInitialised, let zlib { _ = zlib.inflateEnd(stream) }
            stream.deallocate()
        }
    }

    /// The coding a response's `Content-Encoding` asks for, when it is one
    /// this decoder undoes; nil when there is none (or only `identity`),
    /// and for codings it does not know (`br`, `zstd`) or a list of
    /// several (`gzip, gzip`): such bodies are delivered as they came.
    package static func coding(of response: HTTPResponse) -> Coding? {
        var found: Coding?
        var count = 0
        var unknown = false
        for field in response.headerFields where field.name == .contentEncoding {
            var value = field.value
            value.withUTF8 { utf8 in
                HTTPTokenList.forEachElement(UnsafeRawBufferPointer(utf8)) { token in
                    if HTTPTokenList.equalsIgnoringCase(token, "identity") { return true }
                    count += 1
                    if HTTPTokenList.equalsIgnoringCase(token, "gzip") || HTTPTokenList.equalsIgnoringCase(token, "x-gzip") {
                        found = .gzip
                    } else if HTTPTokenList.equalsIgnoringCase(token, "deflate") {
                        found = .deflate
                    } else {
                        unknown = true
                    }
                    return true
                }
            }
        }
        return count == 1 && !unknown ? found : nil
    }

    /// Decodes from the front of `input` into `output`, moving `input`
    /// past the bytes consumed, and returns how many bytes it wrote
    /// (from `output`'s start). Call again while it fills `output` or
    /// `input` is not empty: zlib may hold output back for want of room.
    ///
    /// - Throws: `.cannotDecodeContentData` for a corrupt stream.
    package func decode(_ input: inout UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(UVURLError) -> Int {
        var produced = 0
        while true {
            switch phase {
            case .idle:
                guard !input.isEmpty else { return produced }
                switch coding {
                case .gzip:
                    // 15 + 32: a 32 KiB window, gzip or zlib header detected.
                    try start(windowBits: 15 + 32)
                case .deflate:
                    guard input.count >= 2 else {
                        phase = .sniffing(input[0])
                        input = UnsafeRawBufferPointer(rebasing: input[1...])
                        return produced
                    }
                    try start(windowBits: Self.isZlibHeader(input[0], input[1]) ? 15 : -15)
                }
            case .sniffing(let first):
                guard !input.isEmpty else { return produced }
                try start(windowBits: Self.isZlibHeader(first, input[0]) ? 15 : -15)
                // The byte held back goes first (a header byte, or the
                // start of a raw block: no output can come of one byte).
                var byte = first
                let status = withUnsafeMutableBytes(of: &byte) { one in
                    var rest = UnsafeRawBufferPointer(one)
                    return inflate(&rest, into: output, produced: &produced)
                }
                if status != Z_OK && status != Z_BUF_ERROR { try check(status) }
            case .inflating:
                let status = inflate(&input, into: output, produced: &produced)
                switch status {
                case Z_OK, Z_BUF_ERROR:
                    // Z_BUF_ERROR: no progress was possible (input used up
                    // or output full); neither is an error here.
                    if produced == output.count || input.isEmpty { return produced }
                case Z_STREAM_END:
                    phase = .memberEnded
                default:
                    try check(status)
                }
            case .memberEnded:
                guard !input.isEmpty else { return produced }
                if coding == .gzip && input[0] == 0x1F {
                    // Another member (its magic's second byte and the rest
                    // of its header are zlib's to check).
                    guard zlib!.inflateReset(stream) == Z_OK else { throw Self.failure("inflateReset failed") }
                    phase = .inflating
                } else {
                    phase = .trailing
                }
            case .trailing:
                input = UnsafeRawBufferPointer(rebasing: input[input.count...])
                return produced
            }
        }
    }

    /// The body ended: succeeds when the encoded stream was complete (or
    /// the body empty).
    ///
    /// - Throws: `.cannotDecodeContentData` for a truncated stream.
    package func finish() throws(UVURLError) {
        switch phase {
        case .idle, .memberEnded, .trailing:
            return
        case .sniffing, .inflating:
            throw Self.failure("the \(coding == .gzip ? "gzip" : "deflate") stream is truncated")
        }
    }

    // MARK: Internals

    private func start(windowBits: Int32) throws(UVURLError) {
        let zlib: cuvc_zlib_functions
        if let loaded = self.zlib { zlib = loaded } else { zlib = try loadZlib() }
        let stream = self.stream ?? {
            let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
            stream.initialize(to: z_stream())
            self.stream = stream
            return stream
        }()
        let status = isInitialised
            ? zlib.inflateReset2(stream, windowBits) : cuvc_inflate_init2(zlib.inflateInit2_, stream, windowBits)
        guard status == Z_OK else { throw Self.failure("inflateInit2 failed (\(status))") }
        isInitialised = true
        phase = .inflating
    }

    /// One `inflate` call: from `input` into `output` after `produced`.
    private func inflate(_ input: inout UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
                         produced: inout Int) -> Int32 {
        let stream = self.stream!
        let inCount = min(input.count, Int(UInt32.max))
        let outCount = min(output.count - produced, Int(UInt32.max))
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(inCount)
        stream.pointee.next_out = output.baseAddress.map { ($0 + produced).assumingMemoryBound(to: Bytef.self) }
        stream.pointee.avail_out = uInt(outCount)
        let status = zlib!.inflate(stream, Z_NO_FLUSH)
        let consumed = inCount - Int(stream.pointee.avail_in)
        produced += outCount - Int(stream.pointee.avail_out)
        input = UnsafeRawBufferPointer(rebasing: input[consumed...])
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        return status
    }

    /// zlib's table, kept for the decoder's life.
    private func loadZlib() throws(UVURLError) -> cuvc_zlib_functions {
        let loaded: cuvc_zlib_functions
        if let zlibLibrary {
            var reason = [CChar](repeating: 0, count: 512)
            let capacity = reason.count
            guard let table = cuvc_zlib_load_from(zlibLibrary, &reason, capacity) else {
                throw Self.failure("cannot load zlib: \(String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
            }
            loaded = table.pointee
            free(table)
        } else {
            var reason: UnsafePointer<CChar>?
            guard let table = cuvc_zlib_load(&reason) else {
                throw Self.failure("cannot load zlib: \(reason.map { String(cString: $0) } ?? "unknown reason")")
            }
            loaded = table.pointee
        }
        zlib = loaded
        return loaded
    }

    private func check(_ status: Int32) throws(UVURLError) {
        let name = coding == .gzip ? "gzip" : "deflate"
        switch status {
        case Z_NEED_DICT:
            throw Self.failure("the \(name) stream needs a preset dictionary")
        case Z_MEM_ERROR:
            throw Self.failure("zlib is out of memory")
        default:
            let message = stream?.pointee.msg.map { String(cString: $0) } ?? "error \(status)"
            throw Self.failure("corrupt \(name) stream (zlib: \(message))")
        }
    }

    /// Whether two bytes start a zlib stream (RFC 1950: method 8, a window
    /// of at most 32 KiB, and a header that is a multiple of 31).
    private static func isZlibHeader(_ first: UInt8, _ second: UInt8) -> Bool {
        first & 0x0F == 8 && first >> 4 <= 7 && (UInt16(first) << 8 | UInt16(second)) % 31 == 0
    }

    private static func failure(_ detail: String) -> UVURLError {
        UVURLError(.cannotDecodeContentData, detail: detail)
    }
}
