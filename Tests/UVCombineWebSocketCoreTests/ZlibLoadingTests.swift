import Testing
import UVCombineWebSocketCore

/// zlib is loaded with the first permessage-deflate codec, not at start-up
/// (issue 30): a missing or wrong library is 1011 with the loader's reason,
/// the error the codecs' initialisers throw, never a crash.
@Suite("permessage-deflate: zlib loaded at first use")
struct ZlibLoadingTests {
    /// The error `library` gives, or nil (recorded) when it loads.
    private func failure(_ library: String) -> WebSocketProtocolError? {
        do throws(WebSocketProtocolError) {
            try checkZlib(library: library)
            Issue.record("\(library) loaded as zlib")
            return nil
        } catch {
            return error
        }
    }

    @Test("the process's zlib resolves every function the codecs call")
    func systemLibrary() throws {
        try checkZlib(library: "libz.so.1")
        _ = try DeflateCompressor(windowBits: 15, noContextTakeover: false)
    }

    @Test("a missing zlib: 1011 with dlopen's reason")
    func missingLibrary() {
        let error = failure("libuvcombine-missing-z.so.1")
        #expect(error?.closeCode == .internalServerError)
        #expect(error?.reason == "cannot load zlib: libuvcombine-missing-z.so.1: cannot open shared object file: No such file or directory")
    }

    @Test("a library without zlib's functions: the first missing function is named")
    func wrongLibrary() {
        let reason = failure("libcrypto.so.3")?.reason ?? ""
        #expect(reason.hasPrefix("cannot load zlib: ") && reason.hasSuffix("libcrypto.so.3: undefined symbol: inflateInit2_"),
                "\(reason)")
    }
}
