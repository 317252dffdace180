import CUVCombine

// The session functions of uvcombine.h, checked against the header by the
// compiler (`@c @implementation`); the header documents them.

/// Fills `options` with the defaults. Any thread. See `uvc_session_options_init` in uvcombine.h.
@c @implementation
public func uvc_session_options_init(_ options: UnsafeMutablePointer<uvc_session_options_t>?) -> Int32 {
    guard let options else { return Status.invalid }
    options.pointee = SessionOptions.defaults
    return Status.ok
}

/// Creates an HTTP session on a loop. Any thread. See `uvc_session_new` in uvcombine.h.
@c @implementation
public func uvc_session_new(_ loop: OpaquePointer?, _ options: UnsafePointer<uvc_session_options_t>?,
                            _ session_out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    session_out?.pointee = nil
    guard let loop, let session_out else { return Status.invalid }
    var read = SessionOptions.defaults
    if let options {
        guard let given = SizedStruct.read(options, over: read, fieldStarts: uvc_session_options_t.fieldStarts) else {
            return Status.invalid
        }
        read = given
    }
    guard let configuration = SessionOptions.configuration(read) else {
        return Status.invalid
    }
    let object = LoopObject.from(loop)
    guard object.isActive else { return Status.cancelled }
    session_out.pointee = SessionObject(loop: object, configuration: configuration,
                                         collectsMetrics: read.collect_metrics != 0).retainedPointer
    return Status.ok
}

/// Frees a session; its fetches keep going. Any thread. See `uvc_session_free` in uvcombine.h.
@c @implementation
public func uvc_session_free(_ session: OpaquePointer?) -> Int32 {
    guard let session else { return Status.invalid }
    SessionObject.release(session)
    return Status.ok
}
