#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import UVCombineCore
import UVCombineLoop

/// The timer publisher behind a `uvc_timer_t *`: `UVTimer.publish`'s
/// connectable uv_timer, firing the wall-clock time of each firing as
/// nanoseconds since the Unix epoch, which is what `uvc_timer_cb`
/// receives. Why not `UVTimer.TimerPublisher`: its `Date` values are
/// FoundationEssentials', and the C library links no Foundation module
/// (README, "Footprint").
///
/// ```swift
/// let timer = EpochTimerPublisher(interval: .milliseconds(10), loop: loop)
/// let connection = timer.connect()
/// ```
///
/// Threading: subscribe and connect from any thread; values arrive on the
/// loop thread.
internal final class EpochTimerPublisher: ConnectablePublisher, @unchecked Sendable {
    // @unchecked Sendable: the properties are immutable; the subscribers
    // live in the fan-out, behind its gate.
    internal typealias Output = UInt64
    internal typealias Failure = Never

    /// The period between firings.
    internal let interval: UVLoop.SchedulerTimeType.Stride
    /// The loop whose uv_timer fires.
    internal let loop: UVLoop
    private let fanOut = TimerFanOut<UInt64>()

    internal init(interval: UVLoop.SchedulerTimeType.Stride, loop: UVLoop) {
        self.interval = interval
        self.loop = loop
    }

    internal func receive<S: Subscriber>(subscriber: S) where S.Input == UInt64, S.Failure == Never {
        fanOut.attach(subscriber)
    }

    internal func connect() -> any Cancellable {
        // The closures hold the publisher while the connection runs.
        loop.connectTimer(every: interval, fire: { [self] in fanOut.fire(Self.nanosecondsSinceEpoch()) },
                          detach: { [self] in fanOut.disconnectAll() })
    }

    /// The wall clock now (`CLOCK_REALTIME`), in nanoseconds since the
    /// Unix epoch; 0 before it.
    internal static func nanosecondsSinceEpoch() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        guard now.tv_sec >= 0 else { return 0 }
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }
}
