import Testing
import UVCombineLoop

/// The timer state machine, fed events on a simulated clock: deadlines in
/// nanoseconds, the loop clock in whole milliseconds (as libuv's `uv_now`).
@Suite("TimerSchedule")
struct TimerScheduleTests {
    let ms: UInt64 = 1_000_000

    @Test func slotsAreTheLoopClocksMillisecondTheDeadlineFallsIn() {
        #expect(TimerSchedule.slot(for: 0) == 0)
        #expect(TimerSchedule.slot(for: 999_999) == 0)
        #expect(TimerSchedule.slot(for: 1_000_000) == 1)
        #expect(TimerSchedule.slot(for: 1_000_001) == 1)
        #expect(TimerSchedule.slot(for: .max) == UInt64.max / 1_000_000)
        // The re-arm's slot rounds up: it cannot wake before the deadline.
        #expect(TimerSchedule.slot(atOrAfter: 0) == 0)
        #expect(TimerSchedule.slot(atOrAfter: 1_000_000) == 1)
        #expect(TimerSchedule.slot(atOrAfter: 1_000_001) == 2)
        #expect(TimerSchedule.slot(atOrAfter: .max) == UInt64.max / 1_000_000 + 1)
        #expect(TimerSchedule.timeout(forSlot: 10, loopTime: 7) == 3)
        #expect(TimerSchedule.timeout(forSlot: 10, loopTime: 12) == 0)
    }

    @Test func aOneShotTimerFiresOnceAndCloses() {
        var schedule = TimerSchedule(first: 10 * ms + 300, interval: 0)
        #expect(schedule.slot == 10)
        #expect(schedule.timerFired(now: 11 * ms + 50_000, loopTime: 11) == .fire(nextSlot: nil))
    }

    @Test func firingBeforeTheDeadlineRearmsForTheRemainder() {
        var schedule = TimerSchedule(first: 10 * ms + 300, interval: ms)
        // libuv's clock ran ahead of uv_hrtime: never run early.
        #expect(schedule.timerFired(now: 10 * ms + 200, loopTime: 11) == .rearm(slot: 12))
        #expect(schedule.timerFired(now: 10 * ms + 200, loopTime: 9) == .rearm(slot: 11))
        #expect(schedule.deadline == 10 * ms + 300)
    }

    @Test func repeatingDeadlinesComeFromTheOriginAndDoNotDrift() {
        let first = 10 * ms + 300_000 // 0.3 ms past a loop-clock tick
        var schedule = TimerSchedule(first: first, interval: ms)
        for k in 0..<1_000 as Range<UInt64> {
            let deadline = first + k * ms
            #expect(schedule.deadline == deadline)
            // Fired at the deadline's slot plus 0.9 ms of latency.
            let loopTime = TimerSchedule.slot(for: deadline)
            let action = schedule.timerFired(now: loopTime * ms + 900_000, loopTime: loopTime)
            #expect(action == .fire(nextSlot: TimerSchedule.slot(for: deadline + ms)))
        }
        #expect(schedule.deadline == first + 1_000 * ms)
        #expect(schedule.skippedCount == 0)
    }

    @Test func deadlinesTheBlockedLoopMissedAreSkipped() {
        let first = 10 * ms + 300_000
        var schedule = TimerSchedule(first: first, interval: ms)
        // The loop was blocked: the first firing runs 5.5 ms late.
        let now = first + 5 * ms + 500_000
        let loopTime = now / ms // 15
        let action = schedule.timerFired(now: now, loopTime: loopTime)
        // 11.3, 12.3, 13.3, 14.3 are a whole period behind the loop clock
        // (15 ms): skipped. 15.3 is due but late by less than a period: it
        // runs once more (slot 15), then 16.3: no burst.
        #expect(schedule.deadline == first + 5 * ms)
        #expect(action == .fire(nextSlot: 15))
        #expect(schedule.skippedCount == 4)
    }

    @Test func aDeadlineLateByLessThanAPeriodRunsAtOnce() {
        let first = 10 * ms + 300_000
        var schedule = TimerSchedule(first: first, interval: ms)
        // libuv's millisecond polling let the offset creep: the firing for
        // 10.3 runs at 12.05 (loop clock 12). 11.3 is due but late by less
        // than a period: it runs at once (its slot, 11, has passed), which
        // puts the timer back on its grid instead of dropping a tick.
        #expect(schedule.timerFired(now: 12 * ms + 50_000, loopTime: 12) == .fire(nextSlot: 11))
        #expect(schedule.deadline == first + ms)
        #expect(TimerSchedule.timeout(forSlot: 11, loopTime: 12) == 0)
        #expect(schedule.timerFired(now: 12 * ms + 60_000, loopTime: 12) == .fire(nextSlot: 12))
        #expect(schedule.deadline == first + 2 * ms)
        // 12.3's slot is the loop clock's: libuv runs it in the same pass,
        // before 12.3, and it waits for slot 13 instead of running early.
        #expect(schedule.timerFired(now: 12 * ms + 70_000, loopTime: 12) == .rearm(slot: 13))
        #expect(schedule.deadline == first + 2 * ms)
        #expect(schedule.skippedCount == 0)
    }

    @Test func aDeadlineLaterInTheCurrentSlotIsNotSkipped() {
        var schedule = TimerSchedule(first: 10 * ms, interval: ms)
        // Fired 0.95 ms late: 11.0 is already past, but its slot (11) is
        // after the loop clock (10), so it still runs (late, not skipped).
        #expect(schedule.timerFired(now: 10 * ms + 950_000, loopTime: 10) == .fire(nextSlot: 11))
        #expect(schedule.skippedCount == 0)
    }

    @Test func hugeIntervalsSaturateInsteadOfTrapping() {
        var schedule = TimerSchedule(first: 5 * ms, interval: .max)
        #expect(schedule.timerFired(now: 5 * ms, loopTime: 5) == .fire(nextSlot: UInt64.max / 1_000_000))
        #expect(schedule.deadline == .max)
        var late = TimerSchedule(first: .max - 10, interval: 100)
        #expect(late.timerFired(now: .max, loopTime: UInt64.max / 1_000_000) == .fire(nextSlot: UInt64.max / 1_000_000))
        #expect(late.deadline == .max)
    }
}
