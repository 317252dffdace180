internal import CUVCombineLazyLibraries

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
        throw WebSocketProtocolError(.internalServerError,
                                     "cannot load zlib: \(reason.map { String(cString: $0) } ?? "unknown reason")")
    }
    return table.pointee
}
