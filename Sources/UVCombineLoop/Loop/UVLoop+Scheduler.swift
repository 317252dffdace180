import CLibUV
import UVCombineCore

extension UVLoop: Scheduler {
    /// Options for scheduling on a loop; there are none yet.
    ///
    /// ```swift
    /// loop.schedule(options: UVLoop.SchedulerOptions()) { print("on the loop") }
    /// ```
    public struct SchedulerOptions: Sendable {
        /// No options.
        public init() {}
    }

    /// The current instant on the loop's monotonic clock (`uv_hrtime`, not
    /// libuv's cached millisecond `uv_now`). Any thread.
    ///
    /// ```swift
    /// let deadline = loop.now.advanced(by: .milliseconds(100))
    /// ```
    public var now: SchedulerTimeType {
        SchedulerTimeType(uptimeNanoseconds: uv_hrtime())
    }

    /// One millisecond: libuv's timers count whole milliseconds, so an
    /// action runs within about a millisecond (plus the loop's own latency)
    /// after its deadline, and never before it (checked against
    /// `uv_hrtime`; the rule is TimerSchedule's). Tolerances are accepted
    /// and otherwise ignored.
    public var minimumTolerance: SchedulerTimeType.Stride { .milliseconds(1) }

    /// Runs `action` on the loop thread at the next opportunity: in a later
    /// iteration, never inside this call, even on the loop thread.
    ///
    /// Any thread. Actions scheduled from one thread run in the order they
    /// were scheduled. Actions scheduled after ``close()`` are discarded.
    ///
    /// ```swift
    /// loop.schedule { print("on the loop thread") }
    /// ```
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        post(.action(action))
    }

    /// Runs `action` on the loop thread once `date` has passed: never
    /// earlier, usually within a millisecond after. Actions with equal
    /// deadlines run in the order they were scheduled.
    ///
    /// Any thread. A pending action keeps ``run(_:)`` running, as
    /// JavaScript's `setTimeout` does.
    ///
    /// ```swift
    /// loop.schedule(after: loop.now.advanced(by: .seconds(1))) { print("one second later") }
    /// ```
    public func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride,
                         options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let timer = ScheduledAction(loop: self, deadline: date.uptimeNanoseconds, interval: 0, action: action)
        submitOrdered(.open(timer))
    }

    /// Runs `action` on the loop thread at `date`, then every `interval`
    /// after it, on a fixed schedule (`date + k * interval`): it does not
    /// drift, never runs early, and skips the runs a blocked loop missed.
    /// Intervals under 100 µs count as 100 µs.
    ///
    /// Any thread. The returned cancellable stops the repetition and closes
    /// its timer; keep it, or the action repeats (and keeps ``run(_:)``
    /// running) until the loop closes. `cancel()` may come from any thread
    /// and never blocks: no run starts after it returned, and a run already
    /// in progress on the loop thread completes. Repeating allocates
    /// nothing.
    ///
    /// ```swift
    /// let ticking = loop.schedule(after: loop.now, interval: .seconds(1)) { print("tick") }
    /// ticking.cancel()
    /// ```
    public func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
                         tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
                         _ action: @escaping () -> Void) -> any Cancellable {
        let timer = ScheduledAction(loop: self, deadline: date.uptimeNanoseconds,
                                    interval: UVTimerOwner.period(interval), action: action)
        submitOrdered(.open(timer))
        return timer
    }
}
