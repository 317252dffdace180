import CUVCombine

/// Reads the structs a caller fills in (`uvc_request_t`,
/// `uvc_session_options_t`), which start with a `size_t size` saying which
/// version of the struct the caller compiled against (uvcombine.h,
/// "Conventions"). The struct only grows at the end, so:
///
/// - a smaller size (an older caller) must end where one of our fields
///   starts; the fields it does not cover keep `defaults`;
/// - a larger size (a newer caller) is accepted when every byte beyond our
///   struct is zero: a field we do not know, set, would otherwise be
///   silently ignored;
/// - 0, or a size that ends inside a field, is refused.
///
/// Only the caller's `size` bytes are read. Threading: a pure function of
/// its arguments; runs on the calling thread, during the call.
internal enum SizedStruct {
    /// The struct at `pointer` read over `defaults`, with `size` set to ours;
    /// nil when its size breaks the rules above (the call returns UV_EINVAL).
    /// `fieldStarts` are the offsets of the fields after `size`.
    internal static func read<Value>(_ pointer: UnsafePointer<Value>, over defaults: Value,
                                     fieldStarts: [Int]) -> Value? {
        let raw = UnsafeRawPointer(pointer)
        let callerSize = raw.loadUnaligned(as: Int.self)
        let ourSize = MemoryLayout<Value>.size
        guard callerSize > 0 else { return nil }
        if callerSize > ourSize {
            for offset in ourSize..<callerSize where raw.load(fromByteOffset: offset, as: UInt8.self) != 0 {
                return nil
            }
        } else if callerSize < ourSize {
            guard callerSize == MemoryLayout<Int>.size || fieldStarts.contains(callerSize) else { return nil }
        }
        var value = defaults
        let covered = min(callerSize, ourSize)
        withUnsafeMutableBytes(of: &value) { bytes in
            bytes.baseAddress!.copyMemory(from: raw, byteCount: covered)
            bytes.storeBytes(of: ourSize, toByteOffset: 0, as: Int.self)
        }
        return value
    }
}

extension uvc_session_options_t {
    /// The offsets of the fields after `size`, for `SizedStruct`.
    internal static let fieldStarts: [Int] = [
        MemoryLayout<Self>.offset(of: \.max_connections_per_host)!,
        MemoryLayout<Self>.offset(of: \.max_redirects)!,
        MemoryLayout<Self>.offset(of: \.connect_timeout_ns)!,
        MemoryLayout<Self>.offset(of: \.connection_idle_timeout_ns)!,
        MemoryLayout<Self>.offset(of: \.idle_read_timeout_ns)!,
        MemoryLayout<Self>.offset(of: \.total_timeout_ns)!,
        MemoryLayout<Self>.offset(of: \.max_response_header_bytes)!,
        MemoryLayout<Self>.offset(of: \.max_response_body_bytes)!,
        MemoryLayout<Self>.offset(of: \.tls_ca_file)!,
        MemoryLayout<Self>.offset(of: \.tls_verification_disabled_insecure)!,
        MemoryLayout<Self>.offset(of: \.collect_metrics)!,
        MemoryLayout<Self>.offset(of: \.http_version)!,
    ]
}

extension uvc_request_t {
    /// The offsets of the fields after `size`, for `SizedStruct`.
    internal static let fieldStarts: [Int] = [
        MemoryLayout<Self>.offset(of: \.method)!,
        MemoryLayout<Self>.offset(of: \.url)!,
        MemoryLayout<Self>.offset(of: \.headers)!,
        MemoryLayout<Self>.offset(of: \.header_count)!,
        MemoryLayout<Self>.offset(of: \.body)!,
        MemoryLayout<Self>.offset(of: \.body_length)!,
    ]

    /// Every field 0 but `size`: what UVC_REQUEST_INIT makes.
    internal static var empty: uvc_request_t {
        var request = uvc_request_t()
        request.size = MemoryLayout<uvc_request_t>.size
        return request
    }
}
