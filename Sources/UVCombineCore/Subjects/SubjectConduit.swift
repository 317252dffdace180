import Synchronization

/// What a subject offers its conduits: detaching on cancel, and the latest
/// value for subjects that replay it (``CurrentValueSubject``).
@usableFromInline
internal protocol ConduitParent<Output, Failure>: AnyObject {
    associatedtype Output
    associatedtype Failure: Error
    /// Removes a cancelled conduit from the subscriber list.
    func detach(_ conduit: ConduitBase<Output, Failure>)
    /// The value a new or starved subscriber is owed, if the subject keeps one.
    func latestValue() -> Output?
}

/// One subscriber's link to a subject, non-generic over the subscriber type
/// so a subject can hold subscribers of different types in one list.
///
/// Why `deliver` is a stored function and not an overridden method: a class
/// method reached through the base class runs the *unspecialised* generic
/// body, which is slow and allocates (re-abstraction thunks, coroutine
/// frames). The subclass fills `deliver` with a non-capturing closure formed
/// in its `@inlinable` initialiser, which the subscribing call site
/// specialises for the concrete subscriber: the per-value path then runs
/// specialised code behind one indirect call, and costs no allocation.
@usableFromInline
internal class ConduitBase<Output, Failure: Error>: Subscription {
    @usableFromInline let deliver: (ConduitBase<Output, Failure>, Output) -> Void

    @inlinable
    init(deliver: @escaping (ConduitBase<Output, Failure>, Output) -> Void) {
        self.deliver = deliver
    }

    /// Delivers `value` if this subscriber has demand; drops it otherwise.
    @inlinable @inline(__always)
    final func offer(_ value: Output) { deliver(self, value) }
    /// Delivers the completion once and detaches.
    @usableFromInline func finish(_ completion: Subscribers.Completion<Failure>) { violation("abstract ConduitBase.finish") }
    @usableFromInline func request(_ demand: Subscribers.Demand) { violation("abstract ConduitBase.request") }
    @usableFromInline func cancel() { violation("abstract ConduitBase.cancel") }
}

/// The conduit for one concrete subscriber type.
///
/// State (demand, link to the parent) sits in one inline mutex. Values and
/// completion are delivered outside it, so a subscriber may call `request`,
/// `cancel` or the subject's `send` re-entrantly.
@usableFromInline
internal final class SubjectConduit<Downstream: Subscriber>: ConduitBase<Downstream.Input, Downstream.Failure>,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
    @usableFromInline typealias Output = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline
    internal struct State {
        /// `false` once cancelled or finished; a plain flag so the
        /// per-value check does not copy the `parent` existential.
        @usableFromInline var active = true
        /// `nil` once cancelled or finished.
        @usableFromInline var parent: (any ConduitParent<Output, Failure>)?
        @usableFromInline var demand: Subscribers.Demand = .none
        /// The subscriber has not seen the parent's latest value yet
        /// (only for parents that keep one).
        @usableFromInline var owesLatest: Bool

        @inlinable
        init(parent: any ConduitParent<Output, Failure>, owesLatest: Bool) {
            self.parent = parent
            self.owesLatest = owesLatest
        }
    }

    @usableFromInline let downstream: Downstream
    @usableFromInline let state: Mutex<UncheckedSendable<State>>
    @usableFromInline let name: StaticString
    @usableFromInline let replaysLatest: Bool

    @inlinable
    init(parent: any ConduitParent<Output, Failure>, downstream: Downstream, replaysLatest: Bool, name: StaticString) {
        self.downstream = downstream
        self.name = name
        self.replaysLatest = replaysLatest
        state = Mutex(UncheckedSendable(State(parent: parent, owesLatest: replaysLatest)))
        super.init(deliver: { base, value in
            unsafeDowncast(base, to: SubjectConduit<Downstream>.self).offerNow(value)
        })
    }

    @inlinable
    func offerNow(_ value: Output) {
        let deliver = state.withLock { s -> Bool in
            guard s.value.active else { return false }
            if s.value.demand.isUnlimited { return true }
            guard s.value.demand.rawValue > 0 else {
                // Starved: a replaying parent owes this subscriber the
                // latest value on its next request; others drop it.
                if replaysLatest { s.value.owesLatest = true }
                return false
            }
            s.value.demand = Subscribers.Demand(rawValue: s.value.demand.rawValue - 1)
            s.value.owesLatest = false
            return true
        }
        guard deliver else { return }
        let more = downstream.receive(value)
        if more.rawValue > 0 { add(more) }
    }

    @inlinable
    internal func add(_ more: Subscribers.Demand) {
        state.withLock { s in
            if s.value.active { s.value.demand += more }
        }
    }

    @usableFromInline
    override func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let owed = state.withLock { s -> UncheckedSendable<Output?> in
            guard let parent = s.value.parent else { return UncheckedSendable(nil) }
            s.value.demand += demand
            guard s.value.owesLatest, let latest = parent.latestValue() else { return UncheckedSendable(nil) }
            s.value.owesLatest = false
            s.value.demand -= 1
            return UncheckedSendable(latest)
        }
        if let value = owed.value {
            let more = downstream.receive(value)
            if more.rawValue > 0 { add(more) }
        }
    }

    @usableFromInline
    override func cancel() {
        let parent = state.withLock { s -> UncheckedSendable<(any ConduitParent<Output, Failure>)?> in
            let parent = s.value.parent
            s.value.parent = nil
            s.value.active = false
            return UncheckedSendable(parent)
        }
        parent.value?.detach(self)
    }

    @usableFromInline
    override func finish(_ completion: Subscribers.Completion<Failure>) {
        // The parent reference is handed out and dropped after the lock,
        // like every reference we release.
        let detached = state.withLock { s -> UncheckedSendable<(any ConduitParent<Output, Failure>)?>? in
            guard s.value.active else { return nil }
            s.value.active = false
            defer { s.value.parent = nil }
            return UncheckedSendable(s.value.parent)
        }
        let wasActive = detached != nil
        if wasActive { downstream.receive(completion: completion) }
    }

    @usableFromInline var description: String { name.description }
    @usableFromInline var customMirror: Mirror {
        Mirror(self, children: ["downstream": downstream, "demand": state.withLock { $0.value.demand }])
    }
    @usableFromInline var playgroundDescription: Any { description }
}
