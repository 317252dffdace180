import CLibUV

/// A one-shot timer on a `uv_timer_t` that library code re-arms as often as
/// it likes without allocating: the URL session keeps all its deadlines
/// (connect, idle read, total, idle connections) on one of these, armed for
/// the earliest.
///
/// - Never keeps the loop alive (the handle is unref'd): whatever the
///   deadlines guard (sockets, name resolution) keeps the loop running on
///   its own, and idle keep-alive connections must not.
/// - Never fires early, and at most about a millisecond late from
///   rounding: a deadline is armed for the loop-clock millisecond it falls
///   in (``TimerSchedule``, which states the rule), and a firing that
///   libuv delivers before the deadline (`uv_hrtime`) is re-armed for the
///   first slot after it.
/// - The handle opens on the first `arm` and closes with ``close()`` or
///   when the loop closes.
///
/// ```swift
/// let timer = UVDeadlineTimer(loop: loop) { print("deadline passed") }
/// timer.arm(at: loop.now.advanced(by: .milliseconds(50)).uptimeNanoseconds)
/// timer.arm(at: loop.now.advanced(by: .milliseconds(10)).uptimeNanoseconds) // replaces it
/// ```
///
/// Threading: loop thread only (`init` anywhere).
package final class UVDeadlineTimer {
    private let owner: DeadlineTimerOwner

    /// Creates a disarmed timer that calls `handler` on the loop thread
    /// when an armed deadline passes.
    package init(loop: UVLoop, handler: @escaping () -> Void) {
        owner = DeadlineTimerOwner(loop: loop, handler: handler)
    }

    /// The armed deadline in `uv_hrtime` nanoseconds, if armed.
    package var deadline: UInt64? { owner.deadline }

    /// Arms the timer for `deadline` (`uv_hrtime` nanoseconds), replacing
    /// any earlier arming. Does nothing after ``close()`` or once the loop
    /// closed.
    package func arm(at deadline: UInt64) { owner.arm(at: deadline) }

    /// Stops the timer; it can be armed again.
    package func disarm() { owner.disarm() }

    /// Closes the handle; the timer never fires again. Idempotent.
    package func close() { owner.close() }
}

/// The handle owner behind ``UVDeadlineTimer``.
internal final class DeadlineTimerOwner: UVHandleOwner {
    /// Released when the handle closes.
    private var handler: (() -> Void)?
    internal private(set) var deadline: UInt64?
    /// `close()` was called or the loop closed.
    private var isFinished = false

    internal init(loop: UVLoop, handler: @escaping () -> Void) {
        self.handler = handler
        super.init(loop: loop)
    }

    internal func arm(at deadline: UInt64) {
        loop.preconditionInLoop()
        guard !isFinished, !loop.isClosed else { return }
        if phase == .idle { open() }
        guard phase == .open else { return }
        self.deadline = deadline
        start(slot: TimerSchedule.slot(for: deadline))
    }

    internal func disarm() {
        deadline = nil
        if phase == .open, let handle {
            uv_timer_stop(UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_timer_t.self))
        }
    }

    internal func close() {
        isFinished = true
        deadline = nil
        if phase == .idle { handler = nil }
        closeHandle()
    }

    override internal func open() {
        guard phase == .idle else { return }
        let raw = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<uv_timer_t>.size,
                                                   alignment: MemoryLayout<uv_timer_t>.alignment)
        let timer = raw.bindMemory(to: uv_timer_t.self, capacity: 1)
        _ = uv_timer_init(loop.uvLoop, timer) // always 0
        let handle = UVLoop.handle(timer)
        uv_unref(handle)
        didOpen(handle)
    }

    private func start(slot: UInt64) {
        guard let handle else { return }
        let timer = UnsafeMutableRawPointer(handle).assumingMemoryBound(to: uv_timer_t.self)
        let timeout = TimerSchedule.timeout(forSlot: slot, loopTime: uv_now(loop.uvLoop))
        let status = uv_timer_start(timer, { timer in
            guard let timer else { return }
            Unmanaged<DeadlineTimerOwner>.fromOpaque(timer.pointee.data).takeUnretainedValue().expired()
        }, timeout, 0)
        assert(status == 0, "uv_timer_start: \(UVError(code: status))")
    }

    private func expired() {
        guard let deadline else { return }
        if uv_hrtime() < deadline {
            // libuv fired before the deadline: wait for the remainder, at
            // least one slot ahead so it does not run again in this pass.
            start(slot: max(TimerSchedule.slot(atOrAfter: deadline), uv_now(loop.uvLoop) &+ 1))
            return
        }
        self.deadline = nil
        handler?()
    }

    override internal func shutdown() {
        isFinished = true
        deadline = nil
        super.shutdown()
    }

    override internal func didClose() {
        // The handler's captures may run deinit code: release them on the
        // loop thread, once libuv is done with the handle.
        handler = nil
        super.didClose()
    }
}
