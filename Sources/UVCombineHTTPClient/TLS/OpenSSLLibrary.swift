internal import CUVCombineLazyLibraries
import UVCombineHTTPCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// OpenSSL 3, loaded when a session builds its first TLS context rather
/// than when the process starts: `dlopen` of libcrypto.so.3 and
/// libssl.so.3 (RTLD_NOW | RTLD_LOCAL) and every function the TLS code
/// calls resolved once into a table (Sources/CUVCombineLazyLibraries). A
/// process that never speaks https never loads OpenSSL; a system without
/// it fails the https connection with `.secureConnectionFailed`, not the
/// process.
///
/// The Swift products and the C library take this one path (issue 30,
/// docs/tls.md): the C library then starts without OpenSSL, and the
/// loading and its failure are what every TLS test runs through.
///
/// ```swift
/// let openSSL = try OpenSSLLibrary.load()
/// let context = openSSL.SSL_CTX_new(openSSL.TLS_client_method())
/// ```
///
/// Threading: any thread; the first call loads, the others wait for it
/// and get the same table or the same failure.
package enum OpenSSLLibrary {
    /// The process's OpenSSL, loaded at the first call.
    ///
    /// - Throws: `.secureConnectionFailed` with the loader's reason
    ///   (`"cannot load OpenSSL: libssl.so.3: cannot open shared object
    ///   file: No such file or directory"`), `underlyingErrorName` `"dlopen"`.
    static func load() throws(UVURLError) -> cuvc_openssl_functions {
        var reason: UnsafePointer<CChar>?
        guard let table = cuvc_openssl_load(&reason) else {
            throw failure(reason.map { String(cString: $0) } ?? "unknown reason")
        }
        return table.pointee
    }

    /// Checks that OpenSSL's functions resolve from the libraries named,
    /// loading them anew (they stay loaded): for tests of a missing or
    /// wrong library; the session always uses ``load()``'s.
    ///
    /// - Throws: what ``load()`` throws for those libraries.
    package static func check(libssl: String, libcrypto: String) throws(UVURLError) {
        _ = try load(libssl: libssl, libcrypto: libcrypto)
    }

    /// ``check(libssl:libcrypto:)``'s table, for TLSContext's tests.
    static func load(libssl: String, libcrypto: String) throws(UVURLError) -> cuvc_openssl_functions {
        var reason = [CChar](repeating: 0, count: 512)
        let count = reason.count
        guard let table = cuvc_openssl_load_from(libssl, libcrypto, &reason, count) else {
            throw failure(String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { free(table) }
        return table.pointee
    }

    private static func failure(_ reason: String) -> UVURLError {
        UVURLError(.secureConnectionFailed, detail: "cannot load OpenSSL: \(reason)", underlyingErrorName: "dlopen")
    }
}
