import UVCombineLoop

/// The object behind a `uvc_timer_t *`: a ``UVTimer/TimerPublisher`` and
/// the loop it belongs to. Immutable; any thread.
final class TimerObject: OpaqueObject, Sendable {
    let loop: LoopObject
    let publisher: UVTimer.TimerPublisher

    init(loop: LoopObject, publisher: UVTimer.TimerPublisher) {
        self.loop = loop
        self.publisher = publisher
    }
}
