import UVCombineLoop

/// Timers on a ``/UVCombineLoop/UVLoop``: the namespace for the timer publisher.
///
/// Spelled `UVTimer` rather than `Timer` so that programs that also
/// `import Foundation` (for `Date`, as the timer's values are dates) see no
/// clash with Foundation's `Timer`; the call reads like Foundation's
/// `Timer.publish(every:tolerance:on:in:)` with the loop in place of the run
/// loop and its mode.
///
/// ```swift
/// UVTimer.publish(every: 1, on: loop)
///     .autoconnect()
///     .sink { print($0) }
///     .store(in: &storage)
/// ```
public enum UVTimer {
    /// Returns a connectable publisher that repeatedly emits the current
    /// date on the given interval, from the loop's thread.
    ///
    /// - Parameters:
    ///   - interval: The time between firings; literals are seconds
    ///     (`0.5` is half a second), or write `.milliseconds(10)`.
    ///   - tolerance: Accepted for source compatibility: firings are never
    ///     early and come within about a millisecond after their time, which
    ///     is tighter than any tolerance would allow.
    ///   - loop: The loop whose thread delivers the values.
    ///
    /// Nothing fires until `connect()` (or `autoconnect()`); see
    /// ``TimerPublisher``. Any thread.
    ///
    /// ```swift
    /// let timer = UVTimer.publish(every: 0.5, on: loop)
    /// ```
    public static func publish(every interval: UVLoop.SchedulerTimeType.Stride,
                               tolerance: UVLoop.SchedulerTimeType.Stride? = nil,
                               on loop: UVLoop) -> TimerPublisher {
        TimerPublisher(interval: interval, tolerance: tolerance, loop: loop)
    }
}
