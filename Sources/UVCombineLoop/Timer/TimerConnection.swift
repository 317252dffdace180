import CLibUV
import UVCombineCore

/// One `connect()` of a connectable `uv_timer` publisher: the owner of its
/// `uv_timer_t`, and the cancellable `connect()` returns.
///
/// The publisher front (`UVTimer.TimerPublisher`, with `Date` values, in
/// UVCombineLoopFoundation; the C API's timers are made of it) hands in what
/// a firing and a cancel do, so that this module names no Foundation type:
/// the value a firing sends is the front's business (`Date()` there); the
/// fixed schedule, the skipping of missed firings and the handle's lifetime
/// are this class's.
///
/// Threading: `cancel()` from any thread; it runs `detach` at once (the
/// front detaches its current subscribers), then closes the timer on the
/// loop thread. `fire` runs on the loop thread.
///
/// ```swift
/// let connection = loop.connectTimer(every: .milliseconds(250),
///                                    fire: { fanOut.fire(Date()) },
///                                    detach: { fanOut.disconnectAll() })
/// connection.cancel()
/// ```
internal final class TimerConnection: UVTimerOwner, TimerFiringStatistics {
    // The closures hold the front (and so its subscribers) until the
    // connection is cancelled and its handle closed, as the publisher
    // reference they replace did: a connection keeps firing after the
    // caller drops the publisher.
    private let onFire: () -> Void
    private let onDetach: () -> Void

    /// A connection made at `origin` (`uv_hrtime`): the first firing is one
    /// interval later.
    internal init(interval: UVLoop.SchedulerTimeType.Stride, loop: UVLoop, origin: UInt64,
                 fire: @escaping () -> Void, detach: @escaping () -> Void) {
        onFire = fire
        onDetach = detach
        let period = UVTimerOwner.period(interval)
        super.init(loop: loop,
                   schedule: TimerSchedule(first: TimerSchedule.saturatingAdd(origin, period), interval: period))
    }

    override internal func fire() {
        onFire()
    }

    override internal func willCancel() {
        onDetach()
    }
}

extension UVLoop {
    /// Starts a `uv_timer` on this loop that calls `fire` every `interval`
    /// from now (on a fixed schedule, never early, skipping the firings a
    /// blocked loop missed), and returns the connection that stops and
    /// closes it, calling `detach` first: the engine of the connectable
    /// timer publishers. Any thread; on a closed loop the timer never
    /// starts. `fire` runs on the loop thread; `detach` once, on the thread
    /// that cancels (the loop thread when the loop closes first).
    ///
    /// ```swift
    /// let connection = loop.connectTimer(every: 1, fire: { tick() }, detach: {})
    /// ```
    package func connectTimer(every interval: UVLoop.SchedulerTimeType.Stride,
                              fire: @escaping () -> Void, detach: @escaping () -> Void) -> any Cancellable {
        let connection = TimerConnection(interval: interval, loop: self, origin: uv_hrtime(),
                                         fire: fire, detach: detach)
        submitOrdered(.open(connection))
        return connection
    }
}

/// What a timer publisher's connection counted, for the package's tests
/// (`connection as? any TimerFiringStatistics`). Read on the loop thread.
package protocol TimerFiringStatistics: AnyObject {
    /// Deadlines skipped because the loop was blocked past a whole period.
    var skippedFirings: UInt64 { get }
}

extension TimerConnection {
    package var skippedFirings: UInt64 { schedule.skippedCount }
}
