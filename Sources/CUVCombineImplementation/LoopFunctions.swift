import CLibUV
import CUVCombine
import UVCombineLoop

// The loop functions of uvcombine.h. Each is checked against its declaration
// there by the compiler (`@c @implementation`); the header documents them.

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

@c @implementation
public func uvc_loop_get_uv_loop(_ loop: OpaquePointer?) -> UnsafeMutablePointer<uv_loop_t>? {
    guard let loop else { return nil }
    return LoopObject.from(loop).loop.uvLoop
}

@c @implementation
public func uvc_loop_run(_ loop: OpaquePointer?, _ mode: uv_run_mode) -> Int32 {
    guard let loop else { return Status.invalid }
    return LoopObject.from(loop).run(mode)
}

@c @implementation
public func uvc_loop_stop(_ loop: OpaquePointer?) -> Int32 {
    guard let loop else { return Status.invalid }
    return LoopObject.from(loop).stop()
}

@c @implementation
public func uvc_loop_close(_ loop: OpaquePointer?) -> Int32 {
    guard let loop else { return Status.invalid }
    return LoopObject.from(loop).close()
}

@c @implementation
public func uvc_loop_detach(_ loop: OpaquePointer?, _ cb: uvc_detach_cb?,
                            _ user_data: UnsafeMutableRawPointer?) -> Int32 {
    guard let loop else { return Status.invalid }
    return LoopObject.from(loop).detach(cb, user_data)
}

@c @implementation
public func uvc_loop_free(_ loop: OpaquePointer?) -> Int32 {
    guard let loop else { return Status.invalid }
    let status = LoopObject.from(loop).checkFreeable()
    if status == Status.ok { LoopObject.release(loop) }
    return status
}
