import Synchronization
import UVCombineCore

/// What the TCP publishers' subscriptions share: a loop, and the delivery
/// gate that makes `cancel()` strict across threads.
///
/// Values and completions are delivered on the loop thread while holding
/// the gate; `cancel()` from another thread takes the gate, so it waits for
/// a delivery in flight and no value reaches the subscriber after it
/// returned (Combine's contract). The gate is re-entrant for the thread
/// holding it, so a subscriber may cancel or request from inside
/// `receive(_:)`. The price, as with the timer publisher: a subscriber must
/// not block waiting for a thread that cancels the same subscription.
///
/// Non-generic, so that the loop-side logic is compiled once; the generic
/// subclasses only add the subscriber.
@usableFromInline
internal class TCPSubscriptionBase {
    @usableFromInline internal let loop: UVLoop
    /// Core's re-entrant delivery gate.
    internal let gate = DownstreamGate()

    @usableFromInline
    internal init(loop: UVLoop) {
        self.loop = loop
    }

    /// Runs `body` holding the delivery gate; re-entrant for the thread that
    /// holds it. Any thread.
    internal final func withGate<R>(_ body: () -> R) -> R {
        gate.withGate { _ in body() }
    }

    /// Runs `body` on the loop thread: now when called there, otherwise in
    /// the loop's next iteration (dropped if the loop closed).
    internal final func onLoop(_ body: @escaping () -> Void) {
        if loop.isInLoop {
            body()
        } else {
            loop.schedule(body)
        }
    }
}
