import CUVCombine

/// Writes the structs the library fills in for a caller
/// (`uvc_fetch_metrics_t`, `uvc_transaction_metrics_t`), which start with a
/// `size_t size` the caller set to the size it compiled against
/// (uvcombine.h, "Conventions"): the library writes the fields that size
/// covers and nothing beyond it, so an older caller's smaller struct is
/// safe; bytes a newer caller's larger struct has past ours are left alone.
/// A size of 0, or one that ends inside a field, is refused.
///
/// Threading: pure functions; run on the calling thread, during the call.
internal enum OutputStruct {
    /// The caller's size at `pointer`, or nil when it breaks the rules
    /// above. `fieldStarts` are the offsets of the fields after `size`.
    internal static func callerSize<Value>(_ pointer: UnsafeMutablePointer<Value>, fieldStarts: [Int]) -> Int? {
        let size = UnsafeRawPointer(pointer).loadUnaligned(as: Int.self)
        guard size > 0 else { return nil }
        if size < MemoryLayout<Value>.size {
            guard size == MemoryLayout<Int>.size || fieldStarts.contains(size) else { return nil }
        }
        return size
    }

    /// Copies `value` over the first `callerSize` bytes at `pointer` (all
    /// of it when the caller's struct is larger), keeping the caller's `size`.
    internal static func write<Value>(_ value: Value, to pointer: UnsafeMutablePointer<Value>, callerSize: Int) {
        var value = value
        let count = min(callerSize, MemoryLayout<Value>.size) - MemoryLayout<Int>.size
        guard count > 0 else { return }
        withUnsafeBytes(of: &value) { bytes in
            UnsafeMutableRawPointer(pointer).advanced(by: MemoryLayout<Int>.size)
                .copyMemory(from: bytes.baseAddress!.advanced(by: MemoryLayout<Int>.size), byteCount: count)
        }
    }
}

extension uvc_fetch_metrics_t {
    /// The offsets of the fields after `size`, for `OutputStruct`.
    internal static let fieldStarts: [Int] = [
        MemoryLayout<Self>.offset(of: \.task_start_ns)!,
        MemoryLayout<Self>.offset(of: \.task_end_ns)!,
        MemoryLayout<Self>.offset(of: \.redirect_count)!,
        MemoryLayout<Self>.offset(of: \.transaction_count)!,
    ]
}

extension uvc_transaction_metrics_t {
    /// The offsets of the fields after `size`, for `OutputStruct`.
    internal static let fieldStarts: [Int] = [
        MemoryLayout<Self>.offset(of: \.fetch_start_ns)!,
        MemoryLayout<Self>.offset(of: \.domain_lookup_start_ns)!,
        MemoryLayout<Self>.offset(of: \.domain_lookup_end_ns)!,
        MemoryLayout<Self>.offset(of: \.connect_start_ns)!,
        MemoryLayout<Self>.offset(of: \.connect_end_ns)!,
        MemoryLayout<Self>.offset(of: \.secure_connection_start_ns)!,
        MemoryLayout<Self>.offset(of: \.secure_connection_end_ns)!,
        MemoryLayout<Self>.offset(of: \.request_start_ns)!,
        MemoryLayout<Self>.offset(of: \.request_end_ns)!,
        MemoryLayout<Self>.offset(of: \.response_start_ns)!,
        MemoryLayout<Self>.offset(of: \.response_end_ns)!,
        MemoryLayout<Self>.offset(of: \.request_header_bytes)!,
        MemoryLayout<Self>.offset(of: \.request_body_bytes)!,
        MemoryLayout<Self>.offset(of: \.response_header_bytes)!,
        MemoryLayout<Self>.offset(of: \.response_body_bytes)!,
        MemoryLayout<Self>.offset(of: \.status)!,
        MemoryLayout<Self>.offset(of: \.reused_connection)!,
        MemoryLayout<Self>.offset(of: \.proxy_connection)!,
        MemoryLayout<Self>.offset(of: \.local_port)!,
        MemoryLayout<Self>.offset(of: \.remote_port)!,
        MemoryLayout<Self>.offset(of: \.protocol)!,
        MemoryLayout<Self>.offset(of: \.local_address)!,
        MemoryLayout<Self>.offset(of: \.remote_address)!,
    ]
}
