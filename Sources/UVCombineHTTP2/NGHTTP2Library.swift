internal import CUVCombineLazyLibraries

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// libnghttp2, loaded when the process makes its first connection that may
/// speak HTTP/2 rather than when it starts: `dlopen` of libnghttp2.so.14
/// (RTLD_NOW | RTLD_LOCAL) and every function ``HTTP2ClientConnection``
/// calls resolved once into a table (Sources/CUVCombineLazyLibraries,
/// cuvc_nghttp2.h). The Swift products and the C library take this one
/// path (issue 30): the C library then starts without nghttp2.
///
/// Without the library HTTP/2 is off, not the process: an https
/// connection does not offer `h2` in ALPN (``isAvailable``; the server
/// answers in HTTP/1.1), and a prior-knowledge (`h2c`) connection fails
/// with ``HTTP2Error/Kind/invalidRequest``, detail `"cannot load
/// libnghttp2: "` and the loader's reason (a data task's
/// `UVURLError.Code.invalidRequest`).
///
/// ```swift
/// if NGHTTP2Library.isAvailable { offerHTTP2() }
/// ```
///
/// Threading: any thread; the first call loads, the others wait for it
/// and get the same table or the same failure.
package enum NGHTTP2Library {
    /// Whether the process's libnghttp2 loads (loading it at the first
    /// call); false keeps `h2` out of ALPN.
    package static var isAvailable: Bool {
        var reason: UnsafePointer<CChar>?
        return cuvc_nghttp2_load(&reason) != nil
    }

    /// The process's libnghttp2, loaded at the first call.
    ///
    /// - Throws: ``HTTP2Error/Kind/invalidRequest`` with the loader's
    ///   reason (`"cannot load libnghttp2: libnghttp2.so.14: cannot open
    ///   shared object file: No such file or directory"`).
    static func load() throws(HTTP2Error) -> cuvc_nghttp2_functions {
        var reason: UnsafePointer<CChar>?
        guard let table = cuvc_nghttp2_load(&reason) else {
            throw failure(reason.map { String(cString: $0) } ?? "unknown reason")
        }
        return table.pointee
    }

    /// Checks that nghttp2's functions resolve from the library named,
    /// loading it anew (it stays loaded): for tests of a missing or wrong
    /// library; connections use the process's (``load()``).
    ///
    /// - Throws: what ``load()`` throws for that library.
    package static func check(soname: String) throws(HTTP2Error) {
        _ = try load(soname: soname)
    }

    /// ``check(soname:)``'s table.
    static func load(soname: String) throws(HTTP2Error) -> cuvc_nghttp2_functions {
        var reason = [CChar](repeating: 0, count: 512)
        let capacity = reason.count
        guard let table = cuvc_nghttp2_load_from(soname, &reason, capacity) else {
            throw failure(String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { free(table) }
        return table.pointee
    }

    /// The error a connection fails with when the library is missing.
    static func failure(_ reason: String) -> HTTP2Error {
        HTTP2Error(.invalidRequest, detail: "cannot load libnghttp2: " + reason)
    }
}

extension cuvc_nghttp2_functions {
    /// `nghttp2_strerror`'s text for a library error code.
    internal func message(for code: Int32) -> String {
        self.strerror(code).map { String(cString: $0) } ?? "nghttp2 error \(code)"
    }
}
