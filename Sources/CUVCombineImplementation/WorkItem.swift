import CLibUV
import CUVCombine

/// One `uvc_schedule` / `uvc_schedule_after` callback: runs exactly once,
/// with 0 when the loop runs it, or with `UV_ECANCELED` when the loop drops
/// it (a detach or close before it ran).
///
/// Dropping is noticed by `deinit`: the loop releases the action closure
/// that holds the item without calling it, always on the loop thread (or on
/// the thread closing a created loop that never ran), because new work is
/// only queued while the loop is active (``LoopObject/whileActive(_:)``).
///
/// Threading: created on any thread, run and released on the loop thread.
internal final class WorkItem: @unchecked Sendable {
    private let loop: LoopObject
    private let callback: uvc_work_cb
    private let userData: UnsafeMutableRawPointer?
    /// Set on the loop thread before the callback runs.
    private var ran = false

    internal init(loop: LoopObject, callback: @escaping uvc_work_cb, userData: UnsafeMutableRawPointer?) {
        self.loop = loop
        self.callback = callback
        self.userData = userData
    }

    /// Runs the callback with status 0. Loop thread.
    internal func run() {
        ran = true
        callback(loop.pointer, Status.ok, userData)
    }

    deinit {
        if !ran { callback(loop.pointer, Status.cancelled, userData) }
    }
}
