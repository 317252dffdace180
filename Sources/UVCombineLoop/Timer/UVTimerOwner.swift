import CLibUV
import UVCombineCore
import Synchronization

/// The owner of one `uv_timer_t`, driven by a ``TimerSchedule``: never early,
/// no drift, missed periods skipped, no allocation per tick. Subclasses say
/// what a firing does (``fire()``) and what cancelling stops
/// (``willCancel()``).
///
/// Threading: `cancel()` may be called from any thread, also concurrently
/// with a firing on the loop thread: no firing starts after the cancelled
/// flag is set; one already running completes. Everything else runs on the
/// loop thread.
internal class UVTimerOwner: UVHandleOwner, Cancellable {
    /// Set once by `cancel()` or by the loop closing; checked before every
    /// firing.
    internal let cancelled = Atomic<Bool>(false)

    // MARK: Loop thread only

    internal var schedule: TimerSchedule

    internal init(loop: UVLoop, schedule: TimerSchedule) {
        self.schedule = schedule
        super.init(loop: loop)
    }

    /// The period for a requested interval: at least 100 µs, as Foundation
    /// clamps its timers (the loop clock's millisecond bounds the rate anyway).
    internal static func period(_ interval: UVLoop.SchedulerTimeType.Stride) -> UInt64 {
        UInt64(max(interval.nanoseconds, 100_000))
    }

    internal var timer: UnsafeMutablePointer<uv_timer_t> {
        UnsafeMutableRawPointer(handle!).assumingMemoryBound(to: uv_timer_t.self)
    }

    /// Allocates, initialises and arms the timer. Loop thread.
    override internal final func open() {
        guard phase == .idle else { return }
        if cancelled.load(ordering: .acquiring) {
            phase = .closed
            return
        }
        let raw = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<uv_timer_t>.size,
                                                   alignment: MemoryLayout<uv_timer_t>.alignment)
        let timer = raw.bindMemory(to: uv_timer_t.self, capacity: 1)
        _ = uv_timer_init(loop.uvLoop, timer) // always 0
        didOpen(UVLoop.handle(timer))
        arm(slot: schedule.slot)
    }

    private final func arm(slot: UInt64) {
        let timeout = TimerSchedule.timeout(forSlot: slot, loopTime: uv_now(loop.uvLoop))
        let status = uv_timer_start(timer, { timer in
            guard let timer else { return }
            Unmanaged<UVTimerOwner>.fromOpaque(timer.pointee.data).takeUnretainedValue().timerFired()
        }, timeout, 0)
        assert(status == 0, "uv_timer_start: \(UVError(code: status))")
    }

    private final func timerFired() {
        // A cancel from another thread: its close job is on the way.
        if cancelled.load(ordering: .acquiring) { return }
        switch schedule.timerFired(now: uv_hrtime(), loopTime: uv_now(loop.uvLoop)) {
        case .rearm(let slot):
            arm(slot: slot)
        case .fire(let nextSlot?):
            // Re-armed before the action runs, so that the action may
            // cancel (which stops the re-armed timer) or take long.
            arm(slot: nextSlot)
            fire()
        case .fire(nil):
            closeHandle()
            fire()
        }
    }

    /// What a firing does. Loop thread.
    internal func fire() {
        violation("abstract UVTimerOwner.fire()")
    }

    /// Called once, on the cancelling thread (any thread) or on the loop
    /// thread when the loop closes, before the handle closes.
    internal func willCancel() {}

    /// Stops the timer and closes its handle. Idempotent; any thread.
    internal final func cancel() {
        if cancelled.exchange(true, ordering: .acquiringAndReleasing) { return }
        willCancel()
        loop.submitUnordered(.close(self))
    }

    /// The loop is closing. Loop thread.
    override internal final func shutdown() {
        if !cancelled.exchange(true, ordering: .acquiringAndReleasing) { willCancel() }
        closeHandle()
    }
}
