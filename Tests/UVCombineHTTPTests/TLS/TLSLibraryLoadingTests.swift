import Testing
import UVCombineHTTP
import UVCombineHTTPCore

/// The error `body` throws, or nil (recorded as an issue) when it throws none.
private func failure(of body: () throws(UVURLError) -> Void) -> UVURLError? {
    do throws(UVURLError) {
        try body()
        Issue.record("no error thrown")
        return nil
    } catch {
        return error
    }
}

/// OpenSSL is loaded at the first TLS context, not at start-up (issue 30):
/// a missing or wrong library is a typed `.secureConnectionFailed` with
/// the loader's reason, never a crash. The session's own load (the
/// process's libssl.so.3, once) is what every other TLS test runs on.
@Suite("TLS: OpenSSL loaded at first use")
struct TLSLibraryLoadingTests {
    @Test("the versioned libraries resolve every function the TLS code calls, and a context builds on them")
    func systemLibraries() throws {
        try OpenSSLLibrary.check(libssl: "libssl.so.3", libcrypto: "libcrypto.so.3")
        _ = try TLSContext(configuration: UVURLSession.TLSConfiguration(), libssl: "libssl.so.3",
                           libcrypto: "libcrypto.so.3")
    }

    @Test("a missing libssl: secureConnectionFailed with dlopen's reason, underlyingErrorName dlopen")
    func missingLibssl() {
        let error = failure { () throws(UVURLError) in
            _ = try TLSContext(configuration: UVURLSession.TLSConfiguration(),
                               libssl: "libuvcombine-missing-ssl.so.3", libcrypto: "libcrypto.so.3")
        }
        #expect(error?.code == .secureConnectionFailed)
        #expect(error?.detail == "cannot load OpenSSL: libuvcombine-missing-ssl.so.3: cannot open shared object file: No such file or directory")
        #expect(error?.underlyingErrorName == "dlopen")
    }

    @Test("a missing libcrypto is named as itself")
    func missingLibcrypto() {
        let error = failure { () throws(UVURLError) in
            try OpenSSLLibrary.check(libssl: "libssl.so.3", libcrypto: "libuvcombine-missing-crypto.so.3")
        }
        #expect(error?.code == .secureConnectionFailed)
        #expect(error?.detail == "cannot load OpenSSL: libuvcombine-missing-crypto.so.3: cannot open shared object file: No such file or directory")
        #expect(error?.underlyingErrorName == "dlopen")
    }

    @Test("a library without OpenSSL's functions: the first missing function is named")
    func wrongLibrary() {
        let error = failure { () throws(UVURLError) in try OpenSSLLibrary.check(libssl: "libz.so.1", libcrypto: "libcrypto.so.3") }
        #expect(error?.code == .secureConnectionFailed)
        #expect(error?.underlyingErrorName == "dlopen")
        // dlerror names the library by its path, which depends on the system.
        let detail = error?.detail ?? ""
        #expect(detail.hasPrefix("cannot load OpenSSL: ") && detail.hasSuffix("libz.so.1: undefined symbol: TLS_client_method"),
                "\(detail)")
    }
}
