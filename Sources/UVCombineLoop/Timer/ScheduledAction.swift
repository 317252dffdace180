/// An action a ``UVLoop`` runs at a deadline, once or repeatedly, on its
/// own `uv_timer_t`. Returned (as `any Cancellable`) by the repeating
/// `schedule(after:interval:...)`.
///
/// Threading: `cancel()` from any thread; no run of the action starts after
/// it returns (one already running on the loop thread completes).
internal final class ScheduledAction: UVTimerOwner {
    /// Released when the handle closes. Loop thread.
    private var action: (() -> Void)?

    internal init(loop: UVLoop, deadline: UInt64, interval: UInt64, action: @escaping () -> Void) {
        self.action = action
        super.init(loop: loop, schedule: TimerSchedule(first: deadline, interval: interval))
    }

    override internal func fire() {
        action?()
    }

    override internal func didClose() {
        // Captures may run deinit code: release them on the loop thread,
        // once libuv is done with the handle.
        action = nil
        super.didClose()
    }

    override internal func abandon() {
        super.abandon()
        action = nil
    }
}
