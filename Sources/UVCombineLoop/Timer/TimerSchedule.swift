/// When a timer fires: a pure state machine over the `uv_hrtime` clock,
/// shared by scheduled actions and timer publishers.
///
/// Deadlines are nanoseconds on `uv_hrtime`; libuv's timers count whole
/// milliseconds of its cached loop clock (`uv_now`, the same clock
/// truncated), read once per loop iteration.
///
/// The rule (never early, at most one millisecond late from rounding): a
/// deadline `d` is armed for the loop-clock millisecond it falls in,
/// `floor(d / 1 ms)` (``slot(for:)``). libuv's poll then sleeps whole
/// milliseconds from the clock it read at the start of the iteration, so
/// it wakes at that millisecond plus the fraction of a millisecond the
/// clock had then: usually at or after `d`. Every expiry is checked
/// against `uv_hrtime`: when libuv woke before `d`, the action does not
/// run and the timer is re-armed for the first slot after both `d` and the
/// loop clock (``Action/rearm(slot:)``), which is never early. A 1 ms timer
/// armed just after the loop started therefore fires 1 to 2 ms later;
/// rounding `d` up instead (`ceil`, as before issue 30's last part) added
/// a whole millisecond to nearly every firing (2 to 3 ms for 1 ms).
///
/// Repeating timers keep a fixed origin: deadline k is `first + k *
/// interval`, computed by addition, never re-armed from "now", so they do
/// not drift.
///
/// Lateness: libuv polls in whole milliseconds measured from a clock read
/// at the start of each iteration, so a timer wakes a little after its
/// slot, and at a 1 ms period that offset creeps until a firing lands one
/// slot late. When the next deadline is then already due (late by less
/// than one more period) it runs at once, in the same timer pass, which
/// keeps the rate exact and re-aligns the timer to its grid.
/// When the loop was blocked for longer, every deadline whose period has
/// fully elapsed is skipped and the timer resumes with the first deadline
/// still ahead, as Foundation's `Timer` skips the firings a blocked run loop
/// missed.
///
/// States: `deadline` is the next deadline. Events: ``timerFired(now:loopTime:)``.
/// Actions: ``Action``.
package struct TimerSchedule: Equatable, Sendable {
    /// What the owner does after its uv_timer expired.
    package enum Action: Equatable, Sendable {
        /// libuv fired before the deadline: arm the timer again for this
        /// loop-clock slot and do not run the action.
        case rearm(slot: UInt64)
        /// Run the action. Arm the timer for `nextSlot` first, or close it
        /// when `nil` (the timer fires once).
        case fire(nextSlot: UInt64?)
    }

    /// The next deadline, in `uv_hrtime` nanoseconds.
    package private(set) var deadline: UInt64
    /// The period in nanoseconds; 0 for a timer that fires once.
    package let interval: UInt64
    /// How many deadlines were skipped because the loop was blocked.
    package private(set) var skippedCount: UInt64 = 0

    /// A schedule whose first deadline is `first`, repeating every
    /// `interval` nanoseconds (0: once).
    package init(first: UInt64, interval: UInt64) {
        deadline = first
        self.interval = interval
    }

    /// The loop-clock millisecond a timer for `deadline` is armed for: the
    /// one the deadline falls in, `floor(deadline / 1 ms)`. libuv may wake
    /// in it before the deadline; ``timerFired(now:loopTime:)`` then
    /// re-arms.
    package static func slot(for deadline: UInt64) -> UInt64 {
        deadline / 1_000_000
    }

    /// The first loop-clock millisecond at or after `deadline`:
    /// `ceil(deadline / 1 ms)`. A timer armed for it cannot wake before the
    /// deadline (the re-arm after an early wake).
    package static func slot(atOrAfter deadline: UInt64) -> UInt64 {
        deadline / 1_000_000 + (deadline % 1_000_000 == 0 ? 0 : 1)
    }

    /// The relative timeout `uv_timer_start` needs to expire at `slot` when
    /// the loop clock reads `loopTime` (libuv adds its cached clock).
    package static func timeout(forSlot slot: UInt64, loopTime: UInt64) -> UInt64 {
        slot > loopTime ? slot - loopTime : 0
    }

    /// The slot for the current deadline.
    package var slot: UInt64 { Self.slot(for: deadline) }

    /// The uv_timer expired; `now` is `uv_hrtime()`, `loopTime` is
    /// `uv_now(loop)`.
    package mutating func timerFired(now: UInt64, loopTime: UInt64) -> Action {
        guard now >= deadline else {
            // Never early: wait for the remainder, in a slot that cannot
            // wake before the deadline and at least one slot ahead (so
            // libuv does not run the timer again in the same pass).
            return .rearm(slot: max(Self.slot(atOrAfter: deadline), loopTime &+ 1))
        }
        guard interval > 0 else { return .fire(nextSlot: nil) }
        var next = Self.saturatingAdd(deadline, interval)
        // The loop clock, in nanoseconds: deadlines at or before it are due
        // now (they would run in this same timer pass).
        let (loopNanoseconds, overflow) = loopTime.multipliedReportingOverflow(by: 1_000_000)
        let horizon = overflow ? UInt64.max : loopNanoseconds
        if next != .max && Self.saturatingAdd(next, interval) <= horizon {
            // Blocked past a whole period after `next`: skip every due
            // deadline; resume with the first one after the loop clock.
            let missed = (horizon - next) / interval + 1
            let (skip, skipOverflow) = missed.multipliedReportingOverflow(by: interval)
            next = skipOverflow ? .max : Self.saturatingAdd(next, skip)
            skippedCount &+= missed
        }
        // Otherwise `next` is ahead, or due but late by less than a period:
        // it runs at its slot (at once when that slot has passed).
        deadline = next
        return .fire(nextSlot: Self.slot(for: next))
    }

    package static func saturatingAdd(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }
}
