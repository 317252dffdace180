/// A cancellable timer for operators (`debounce`, `timeout`,
/// `collect(.byTime)`), kept inside the owner's mutex.
///
/// Schedulers offer cancellation only for repeating actions, so an alarm is
/// a repeating action that the owner disarms (cancels) the first time it
/// fires. Operators arm lazily: while armed they only move their deadline,
/// and when the alarm fires before the current deadline they re-arm for
/// it. A burst of values then costs one scheduled action, not one per value.
///
/// Arming happens outside the lock (`schedule` may run the action
/// synchronously, as `ImmediateScheduler` does, or on another thread before
/// it returns). Each arming carries an epoch; ``armed(_:epoch:)`` keeps the
/// returned cancellable only if that arming is still current and otherwise
/// hands it back to be cancelled. A stale firing (a cancelled repetition that
/// was already on its way) is harmless: owners decide from the clock and
/// their state, not from which firing called them.
@usableFromInline
internal struct Alarm {
    @usableFromInline
    internal enum Phase {
        case idle
        case arming(epoch: UInt64)
        case armed(epoch: UInt64, any Cancellable)
    }

    @usableFromInline internal var phase: Phase = .idle
    @usableFromInline internal var epoch: UInt64 = 0

    @inlinable
    internal init() {}

    /// Whether the alarm is armed or being armed.
    @inlinable
    internal var isActive: Bool {
        if case .idle = phase { return false }
        return true
    }

    /// Starts an arming when idle; returns its epoch, or `nil` when the alarm
    /// is already active.
    @inlinable
    internal mutating func beginArming() -> UInt64? {
        guard case .idle = phase else { return nil }
        epoch &+= 1
        phase = .arming(epoch: epoch)
        return epoch
    }

    /// Records the cancellable of the arming `epoch`. Returns it back when
    /// that arming is no longer current: cancel it outside the lock.
    @inlinable
    internal mutating func armed(_ token: any Cancellable, epoch: UInt64) -> (any Cancellable)? {
        if case .arming(let current) = phase, current == epoch {
            phase = .armed(epoch: epoch, token)
            return nil
        }
        return token
    }

    /// Disarms; returns the cancellable to cancel outside the lock.
    @inlinable
    internal mutating func disarm() -> (any Cancellable)? {
        defer { phase = .idle }
        if case .armed(_, let token) = phase { return token }
        return nil
    }
}

extension Scheduler {
    /// Arms an operator alarm: a repeating action from `deadline`, so that it
    /// can be cancelled. The period is `interval` when positive (the owner
    /// disarms on the first firing, so it only matters if a cancel races a
    /// firing), else one second.
    @inlinable
    internal func scheduleAlarm(at deadline: SchedulerTimeType,
                                interval: SchedulerTimeType.Stride,
                                options: SchedulerOptions?,
                                _ action: @escaping () -> Void) -> any Cancellable {
        let period = interval > .zero ? interval : .seconds(1)
        return schedule(after: deadline, interval: period, tolerance: minimumTolerance, options: options, action)
    }
}
