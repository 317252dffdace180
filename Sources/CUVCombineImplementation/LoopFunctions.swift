import CLibUV
import CUVCombine
import UVCombineLoop

// The loop functions of uvcombine.h. Each is checked against its declaration
// there by the compiler (`@c @implementation`); the header documents them.

/// Adopts the host's libuv loop. On the thread that runs it. See `uvc_loop_adopt` in uvcombine.h.
@c @implementation
public func uvc_loop_adopt(_ uv_loop: UnsafeMutablePointer<uv_loop_t>?,
                           _ loop_out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    loop_out?.pointee = nil
    guard let uv_loop, let loop_out else { return Status.invalid }
    do {
        let loop = try UVLoop(adopting: uv_loop)
        loop_out.pointee = LoopObject(loop: loop, kind: .adopted).retainedPointer
        return Status.ok
    } catch {
        return error.code
    }
}

/// Creates a loop with a `uv_loop_t` of its own. Any thread. See `uvc_loop_new` in uvcombine.h.
@c @implementation
public func uvc_loop_new(_ loop_out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let loop_out else { return Status.invalid }
    loop_out.pointee = nil
    do {
        let loop = try UVLoop()
        loop_out.pointee = LoopObject(loop: loop, kind: .created).retainedPointer
        return Status.ok
    } catch {
        return error.code
    }
}

/// The libuv loop behind a loop. Any thread. See `uvc_loop_get_uv_loop` in uvcombine.h.
@c @implementation
public func uvc_loop_get_uv_loop(_ loop: OpaquePointer?) -> UnsafeMutablePointer<uv_loop_t>? {
    guard let loop else { return nil }
    return LoopObject.from(loop).loop.uvLoop
}

/// Runs a created loop on the calling thread; 1 or 0 as `uv_run`, or an error. See `uvc_loop_run` in uvcombine.h.
@c @implementation
public func uvc_loop_run(_ loop: OpaquePointer?, _ mode: uv_run_mode) -> Int32 {
    guard let loop else { return Status.invalid }
    return LoopObject.from(loop).run(mode)
}

/// Ends a created loop's `uvc_loop_run` after the current iteration. Any thread. See `uvc_loop_stop` in uvcombine.h.
@c @implementation
public func uvc_loop_stop(_ loop: OpaquePointer?) -> Int32 {
    guard let loop else { return Status.invalid }
    return LoopObject.from(loop).stop()
}

/// Closes a created loop and everything on it. Its loop thread, not running. See `uvc_loop_close` in uvcombine.h.
@c @implementation
public func uvc_loop_close(_ loop: OpaquePointer?) -> Int32 {
    guard let loop else { return Status.invalid }
    return LoopObject.from(loop).close()
}

/// Closes our handles on an adopted loop; `cb` runs once they closed. Loop thread. See `uvc_loop_detach` in uvcombine.h.
@c @implementation
public func uvc_loop_detach(_ loop: OpaquePointer?, _ cb: uvc_detach_cb?,
                            _ user_data: UnsafeMutableRawPointer?) -> Int32 {
    guard let loop else { return Status.invalid }
    return LoopObject.from(loop).detach(cb, user_data)
}

/// Frees a closed or detached loop. Any thread. See `uvc_loop_free` in uvcombine.h.
@c @implementation
public func uvc_loop_free(_ loop: OpaquePointer?) -> Int32 {
    guard let loop else { return Status.invalid }
    let status = LoopObject.from(loop).checkFreeable()
    if status == Status.ok { LoopObject.release(loop) }
    return status
}
