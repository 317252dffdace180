internal import CUVCombineLazyLibraries

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's zlib for permessage-deflate, loaded (libz.so.1, once per
/// process) when the first compressor or decompressor is made rather than
/// when the process starts (Sources/CUVCombineLazyLibraries; issue 30).
///
/// - Throws: 1011 (`.internalServerError`) with the loader's reason
///   (`"cannot load zlib: libz.so.1: cannot open shared object file: No
///   such file or directory"`).
///
/// Threading: any thread.
func loadZlib() throws(WebSocketProtocolError) -> cuvc_zlib_functions {
    var reason: UnsafePointer<CChar>?
    guard let table = cuvc_zlib_load(&reason) else {
        throw zlibFailure(reason.map { String(cString: $0) } ?? "unknown reason")
    }
    return table.pointee
}

/// Checks that zlib's functions resolve from the library named, loading it
/// anew (it stays loaded): for tests of the error a missing or wrong
/// library gives; the codecs always use the process's (``loadZlib()``).
///
/// ```swift
/// try checkZlib(library: "libz.so.1")
/// ```
///
/// - Throws: what the codecs' initialisers throw for that library: 1011
///   with the loader's reason.
///
/// Threading: any thread.
package func checkZlib(library: String) throws(WebSocketProtocolError) {
    var reason = [CChar](repeating: 0, count: 512)
    let capacity = reason.count
    guard let table = cuvc_zlib_load_from(library, &reason, capacity) else {
        throw zlibFailure(String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    free(table)
}

private func zlibFailure(_ reason: String) -> WebSocketProtocolError {
    WebSocketProtocolError(.internalServerError, "cannot load zlib: \(reason)")
}
