import CUVCombine
import Synchronization
import UVCombineCore

/// The object behind a `uvc_subscription_t *`: a subscriber that calls a C
/// function for every timer firing, with unlimited demand (a sink).
///
/// Cancelling is strict, as the timer publisher's subscriptions are: once
/// `cancel()` returned, the callback does not run again (a firing being
/// delivered on the loop thread is waited for; from inside the callback the
/// cancel takes effect at once).
///
/// Threading: `cancel()` from any thread; values arrive on the loop thread.
internal final class SubscriptionObject: OpaqueObject, Subscriber, @unchecked Sendable {
    internal typealias Input = UInt64
    internal typealias Failure = Never

    internal let combineIdentifier = CombineIdentifier()
    private let callback: uvc_timer_cb
    private let userData: UnsafeMutableRawPointer?

    private struct State {
        /// The timer's subscription, until cancelled.
        internal var upstream: (any Subscription)?
        /// `uvc_subscription_cancel` (or free) was called.
        internal var cancelled = false
    }

    private let state = Locked(State())

    internal init(callback: @escaping uvc_timer_cb, userData: UnsafeMutableRawPointer?) {
        self.callback = callback
        self.userData = userData
    }

    internal func receive(subscription: any Subscription) {
        let accepted = state.withLock { state -> Bool in
            guard !state.cancelled, state.upstream == nil else { return false }
            state.upstream = subscription
            return true
        }
        if accepted {
            subscription.request(.unlimited)
        } else {
            subscription.cancel()
        }
    }

    internal func receive(_ input: UInt64) -> Subscribers.Demand {
        callback(pointer, input, userData)
        return .none
    }

    internal func receive(completion: Subscribers.Completion<Never>) {
        // A timer never completes; let go of the subscription if one did.
        _ = state.withLock { state -> (any Subscription)? in
            defer { state.upstream = nil }
            return state.upstream
        }
    }

    /// `uvc_subscription_cancel`: 0 the first time, `UV_EALREADY` after.
    internal func cancel() -> Int32 {
        let taken = state.withLock { state -> (any Subscription)?? in
            guard !state.cancelled else { return nil }
            state.cancelled = true
            defer { state.upstream = nil }
            return state.upstream
        }
        guard let taken else { return Status.already }
        taken?.cancel()
        return Status.ok
    }
}
