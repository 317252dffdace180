import FoundationEssentials

/// One `connect()` of a ``UVTimer/TimerPublisher``: the owner of its
/// `uv_timer_t`, and the cancellable `connect()` returns.
///
/// Threading: `cancel()` from any thread; it detaches the publisher's
/// current subscribers at once, then closes the timer on the loop thread.
internal final class TimerConnection: UVTimerOwner, TimerFiringStatistics {
    private let publisher: UVTimer.TimerPublisher

    /// A connection made at `origin` (`uv_hrtime`): the first firing is one
    /// interval later.
    internal init(publisher: UVTimer.TimerPublisher, origin: UInt64) {
        self.publisher = publisher
        let period = UVTimerOwner.period(publisher.interval)
        super.init(loop: publisher.loop,
                   schedule: TimerSchedule(first: TimerSchedule.saturatingAdd(origin, period), interval: period))
    }

    override internal func fire() {
        publisher.fanOut.fire(Date())
    }

    override internal func willCancel() {
        publisher.fanOut.disconnectAll()
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
