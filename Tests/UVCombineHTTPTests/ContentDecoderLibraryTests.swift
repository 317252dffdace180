import Testing
import UVCombineHTTP
import UVCombineHTTPCore

/// zlib is loaded with the first encoded byte, not at start-up (issue 30):
/// a missing or wrong library fails the body with
/// `.cannotDecodeContentData` and the loader's reason, never a crash.
@Suite("ContentDecoder: zlib loaded at first use")
struct ContentDecoderLibraryTests {
    /// Decodes `encoded` in one run, then finishes.
    private func decode(_ decoder: ContentDecoder, _ encoded: [UInt8]) throws(UVURLError) -> [UInt8] {
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
        defer { output.deallocate() }
        var decoded: [UInt8] = []
        let result = encoded.withUnsafeBytes { run -> Result<Void, UVURLError> in
            var input = run
            do throws(UVURLError) {
                while true {
                    let count = try decoder.decode(&input, into: output)
                    decoded += UnsafeRawBufferPointer(rebasing: output[..<count])
                    if input.isEmpty && count < output.count { return .success(()) }
                }
            } catch {
                return .failure(error)
            }
        }
        try result.get()
        try decoder.finish()
        return decoded
    }

    private let text = Array("lazily loaded zlib, lazily loaded zlib".utf8)

    @Test("zlib named explicitly decodes as the process's does")
    func namedLibrary() throws {
        let decoder = ContentDecoder(coding: .gzip, zlibLibrary: "libz.so.1")
        #expect(try decode(decoder, compressed(text, .gzip)) == text)
    }

    @Test("a missing zlib: cannotDecodeContentData with dlopen's reason")
    func missingLibrary() {
        let decoder = ContentDecoder(coding: .gzip, zlibLibrary: "libuvcombine-missing-z.so.1")
        do throws(UVURLError) {
            _ = try decode(decoder, compressed(text, .gzip))
            Issue.record("decoded without zlib")
        } catch {
            #expect(error.code == .cannotDecodeContentData)
            #expect(error.detail == "cannot load zlib: libuvcombine-missing-z.so.1: cannot open shared object file: No such file or directory")
        }
    }

    @Test("a library without zlib's functions: the first missing function is named")
    func wrongLibrary() {
        let decoder = ContentDecoder(coding: .deflate, zlibLibrary: "libcrypto.so.3")
        do throws(UVURLError) {
            _ = try decode(decoder, compressed(text, .zlib))
            Issue.record("decoded with libcrypto as zlib")
        } catch {
            #expect(error.code == .cannotDecodeContentData)
            let detail = error.detail ?? ""
            #expect(detail.hasPrefix("cannot load zlib: ") && detail.hasSuffix("libcrypto.so.3: undefined symbol: inflateInit2_"),
                    "\(detail)")
        }
    }

    @Test("an empty body needs no zlib: nothing is loaded, nothing fails")
    func emptyBodyLoadsNothing() throws {
        let decoder = ContentDecoder(coding: .gzip, zlibLibrary: "libuvcombine-missing-z.so.1")
        #expect(try decode(decoder, []) == [])
    }
}
