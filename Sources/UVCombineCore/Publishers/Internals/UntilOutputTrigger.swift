// What `drop(untilOutputFrom:)` and `prefix(untilOutputFrom:)` share: the
// subscriber they give the other publisher (the trigger) and the phase of
// each of their two links. Their inners differ in what the trigger's
// element and completion mean, so each keeps its own state machine
// (Publishers.DropUntilOutput.swift, Publishers.PrefixUntilOutput.swift).

/// The phase of one of the two links (upstream, trigger) of an
/// until-output operator.
@usableFromInline
internal enum UntilOutputLink {
    case awaiting
    case subscribed(any Subscription)
    case terminal

    @inlinable
    var subscription: (any Subscription)? {
        if case .subscribed(let s) = self { return s }
        return nil
    }
}

/// The inner subscription of an until-output operator, as its trigger sees
/// it. Called on the thread the other publisher delivers on.
@usableFromInline
internal protocol UntilOutputTriggerTarget: AnyObject {
    /// The other publisher's failure type.
    associatedtype TriggerFailure: Error
    func triggerReceive(subscription: any Subscription)
    /// The other publisher emitted (any element: only the first matters).
    func triggerFired()
    func triggerCompleted(_ completion: Subscribers.Completion<TriggerFailure>)
}

/// Subscribes to the other publisher on behalf of the operator's inner
/// subscription, under the same ``CombineIdentifier`` (as Combine's does).
///
/// Debug output only where the inner has its own (conditional
/// conformances below): `drop(untilOutputFrom:)`'s trigger describes itself
/// as `DropUntilOutput`, and `prefix(untilOutputFrom:)`'s, like Combine's,
/// customises nothing.
@usableFromInline
internal struct UntilOutputTrigger<Target: UntilOutputTriggerTarget, Input>: Subscriber {
    @usableFromInline typealias Failure = Target.TriggerFailure

    @usableFromInline let inner: Target

    @inlinable
    init(inner: Target) {
        self.inner = inner
    }

    /// The inner subscription's identifier (a class subscriber's default).
    @inlinable
    var combineIdentifier: CombineIdentifier { CombineIdentifier(inner) }

    @inlinable
    func receive(subscription: any Subscription) {
        inner.triggerReceive(subscription: subscription)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        inner.triggerFired()
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        inner.triggerCompleted(completion)
    }
}

extension UntilOutputTrigger: CustomStringConvertible where Target: CustomStringConvertible {
    @usableFromInline var description: String { inner.description }
}

extension UntilOutputTrigger: CustomReflectable where Target: CustomReflectable {
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension UntilOutputTrigger: CustomPlaygroundDisplayConvertible where Target: CustomPlaygroundDisplayConvertible {
    @usableFromInline var playgroundDescription: Any { inner.playgroundDescription }
}
