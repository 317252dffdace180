import Testing
import UVCombineHTTP2
import UVCombineHTTPCore

/// libnghttp2 loaded at the first connection (issue 30), and what a
/// connection does when it cannot be: HTTP2Error.invalidRequest with the
/// loader's reason (a data task's UVURLError.invalidRequest).
@Suite("libnghttp2 loaded at first use")
struct NGHTTP2LibraryTests {
    static let missing = "libuvcombine-missing-nghttp2.so.14"
    static let missingReason = "cannot load libnghttp2: libuvcombine-missing-nghttp2.so.14: cannot open shared object file: No such file or directory"

    @Test("the process's libnghttp2 loads, and so does the versioned soname named explicitly")
    func loads() throws {
        #expect(NGHTTP2Library.isAvailable)
        try NGHTTP2Library.check(soname: "libnghttp2.so.14")
        let connection = try HTTP2ClientConnection(nghttp2Library: "libnghttp2.so.14")
        var out: [UInt8] = []
        _ = connection.produceOutput(into: &out)
        #expect(out.starts(with: Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)), "the client preface first")
    }

    @Test("a missing library: invalidRequest with dlopen's reason")
    func missingLibrary() {
        #expect(throws: HTTP2Error(.invalidRequest)) { try NGHTTP2Library.check(soname: Self.missing) }
        do throws(HTTP2Error) {
            try NGHTTP2Library.check(soname: Self.missing)
        } catch {
            #expect(error.kind == .invalidRequest)
            #expect(error.detail == Self.missingReason)
        }
    }

    @Test("a connection without the library fails to be made; the data task's error is invalidRequest")
    func connectionWithoutTheLibrary() {
        do throws(HTTP2Error) {
            _ = try HTTP2ClientConnection(nghttp2Library: Self.missing)
            Issue.record("made a connection without libnghttp2")
        } catch {
            #expect(error.kind == .invalidRequest)
            #expect(error.errorCode == nil)
            #expect(error.detail == Self.missingReason)
            #expect(error.urlError.code == .invalidRequest)
            #expect(error.urlError.detail == "HTTP/2: invalid HTTP/2 request (\(Self.missingReason))")
            #expect(!error.isRetryable)
        }
    }

    @Test("a library without nghttp2's functions: the first missing function is named")
    func wrongLibrary() {
        do throws(HTTP2Error) {
            try NGHTTP2Library.check(soname: "libz.so.1")
            Issue.record("loaded zlib as nghttp2")
        } catch {
            #expect(error.kind == .invalidRequest)
            let detail = error.detail ?? ""
            #expect(detail.hasPrefix("cannot load libnghttp2: "), "\(detail)")
            #expect(detail.hasSuffix("undefined symbol: nghttp2_strerror"), "\(detail)")
        }
    }
}
