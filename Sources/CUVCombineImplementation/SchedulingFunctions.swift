import CUVCombine
import UVCombineCore
import UVCombineLoop

// The scheduling functions of uvcombine.h, checked against the header by the
// compiler (`@c @implementation`); the header documents them.

/// Runs `cb` on the loop thread at the next opportunity. Any thread. See `uvc_schedule` in uvcombine.h.
@c @implementation
public func uvc_schedule(_ loop: OpaquePointer?, _ cb: uvc_work_cb?,
                         _ user_data: UnsafeMutableRawPointer?) -> Int32 {
    guard let loop, let cb else { return Status.invalid }
    let object = LoopObject.from(loop)
    // Made only once accepted: a rejected item must not report UV_ECANCELED.
    return object.whileActive {
        let item = WorkItem(loop: object, callback: cb, userData: user_data)
        object.loop.schedule(options: nil) { item.run() }
    }
}

/// Runs `cb` on the loop thread after `delay_ns`, never earlier. Any thread. See `uvc_schedule_after` in uvcombine.h.
@c @implementation
public func uvc_schedule_after(_ loop: OpaquePointer?, _ delay_ns: UInt64, _ cb: uvc_work_cb?,
                               _ user_data: UnsafeMutableRawPointer?) -> Int32 {
    guard let loop, let cb else { return Status.invalid }
    let object = LoopObject.from(loop)
    let delay = UVLoop.SchedulerTimeType.Stride.nanoseconds(Int(clamping: delay_ns))
    return object.whileActive {
        let item = WorkItem(loop: object, callback: cb, userData: user_data)
        let uvLoop = object.loop
        uvLoop.schedule(after: uvLoop.now.advanced(by: delay), tolerance: uvLoop.minimumTolerance,
                        options: nil) { item.run() }
    }
}
