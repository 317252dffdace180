import UVCombineLoop

/// The object behind a `uvc_timer_t *`: an ``EpochTimerPublisher`` and
/// the loop it belongs to. Immutable; any thread.
internal final class TimerObject: OpaqueObject, Sendable {
    internal let loop: LoopObject
    internal let publisher: EpochTimerPublisher

    internal init(loop: LoopObject, publisher: EpochTimerPublisher) {
        self.loop = loop
        self.publisher = publisher
    }
}
