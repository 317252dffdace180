/// The life cycle of an operator's link to its upstream, as one explicit
/// enum (the pattern every operator's `Inner` uses).
///
/// - `awaitingSubscription`: subscribed to upstream, no subscription yet.
/// - `subscribed`: upstream sent its subscription; values may flow.
/// - `pendingTerminal`: a terminal decision is taken but the completion has
///   not been delivered yet (used by operators that finish asynchronously).
/// - `terminal`: finished, failed or cancelled; nothing flows any more.
@usableFromInline
internal enum SubscriptionStatus {
    case awaitingSubscription
    case subscribed(any Subscription)
    case pendingTerminal(any Subscription)
    case terminal

    /// The upstream subscription, while there is one.
    @inlinable
    internal var subscription: (any Subscription)? {
        switch self {
        case .subscribed(let s), .pendingTerminal(let s): return s
        case .awaitingSubscription, .terminal: return nil
        }
    }

    /// Whether values may flow.
    /// Becomes `.terminal` and hands over the subscription it held, moved
    /// rather than copied: an `any Subscription` copy and destroy are two
    /// value-witness calls.
    @inlinable
    internal mutating func terminate() -> (any Subscription)? {
        switch consume self {
        case .subscribed(let s), .pendingTerminal(let s):
            self = .terminal
            return s
        case .awaitingSubscription, .terminal:
            self = .terminal
            return nil
        }
    }

    @inlinable
    internal var isSubscribed: Bool {
        if case .subscribed = self { return true }
        return false
    }

    /// Whether there is an upstream subscription (`subscribed` or
    /// `pendingTerminal`): `subscription != nil` without copying the
    /// existential out (a copy and a destroy, ~110 instructions, on a
    /// per-value path).
    @inlinable
    internal var holdsSubscription: Bool {
        switch self {
        case .subscribed, .pendingTerminal: return true
        case .awaitingSubscription, .terminal: return false
        }
    }

    /// Whether nothing flows any more.
    @inlinable
    internal var isTerminal: Bool {
        if case .terminal = self { return true }
        return false
    }
}
