import UVCombineLoop
import UVCombineLoopFoundation

/// The object behind a `uvc_timer_t *`: a ``UVTimer/TimerPublisher`` and
/// the loop it belongs to. Immutable; any thread.
internal final class TimerObject: OpaqueObject, Sendable {
    internal let loop: LoopObject
    internal let publisher: UVTimer.TimerPublisher

    internal init(loop: LoopObject, publisher: UVTimer.TimerPublisher) {
        self.loop = loop
        self.publisher = publisher
    }
}
