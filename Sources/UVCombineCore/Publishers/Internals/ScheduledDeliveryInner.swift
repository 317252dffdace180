/// How `receive(on:)` and `delay` hand an event to their scheduler: the one
/// thing the two operators' subscription (``ScheduledDeliveryInner``)
/// leaves to each. A small struct holding the scheduler and its arguments;
/// specialised with the inner, so the call costs what the scheduler's
/// `schedule` costs.
@usableFromInline
internal protocol ScheduledDeliveryTiming {
    /// Schedules `action` (the same pre-formed closure for every event).
    func schedule(_ action: @escaping () -> Void)
}

/// A timing whose subscription describes itself (`receive(on:)`'s, as
/// Combine's does); `delay`'s, like Combine's, customises no debug output.
@usableFromInline
internal protocol DescribedScheduledDeliveryTiming: ScheduledDeliveryTiming {
    /// The subscription's `description` and `playgroundDescription`.
    static var operatorName: String { get }
}

/// The subscription behind `receive(on:)` and `delay`: one scheduled action
/// per value and per completion, as Combine schedules them (see
/// ``ScheduledEvents``), and one drain loop that delivers them in order.
///
/// Combine's rules, kept here: `cancel()` stops the values still on their
/// way, but once the upstream has completed it is ignored, so the values
/// queued before the completion and the completion itself still arrive;
/// the inner object (and its subscriber) stays alive until every scheduled
/// action has run; `request` (`.none` included) goes straight upstream.
///
/// Threading: the upstream may deliver on any thread; the subscriber is
/// called on the scheduler, one event at a time.
@usableFromInline
internal final class ScheduledDeliveryInner<Downstream: Subscriber, Timing: ScheduledDeliveryTiming>:
    Subscriber, Subscription
{
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline
    internal struct State {
        /// Written only through ``become(_:)``.
        @usableFromInline var status: SubscriptionStatus = .awaitingSubscription
        /// `status` is `.subscribed`: values are accepted from upstream.
        @usableFromInline var accepting = false
        /// `status` holds a subscription (`.subscribed` or
        /// `.pendingTerminal`): queued values are delivered.
        ///
        /// Why two flags beside `status`: testing the enum copies its
        /// `any Subscription` payload out and destroys it again (two
        /// value-witness calls and a retain, ~130 instructions), twice per
        /// value (issue 32). The flags are plain loads.
        @usableFromInline var delivering = false
        @usableFromInline var pending = ScheduledEvents<Input, Failure>()

        @inlinable
        init() {}

        /// Moves to `status`, keeping the flags in step.
        @inlinable
        mutating func become(_ status: SubscriptionStatus) {
            accepting = status.isSubscribed
            delivering = status.holdsSubscription
            self.status = status
        }
    }

    @usableFromInline
    internal enum Step {
        case deliver(ScheduledEvent<Input, Failure>)
        case skip
        case done(release: AnyObject?)
    }

    @usableFromInline let downstream: Downstream
    @usableFromInline let timing: Timing
    @usableFromInline let state = Locked(State())
    /// The action scheduled for every event, formed once in the
    /// initialiser (where it is specialised), so scheduling allocates no
    /// closure. Written only in `init`, so its reads need no exclusivity
    /// check (a checked read cost ~110 instructions per value).
    @exclusivity(unchecked) @usableFromInline internal private(set) var deliverAction: () -> Void = {}

    @inlinable
    init(downstream: Downstream, timing: Timing) {
        self.downstream = downstream
        self.timing = timing
        // Unowned, not weak: ``ScheduledEvents`` holds `self` from the
        // first `push` until every scheduled action has run (`keepAlive`),
        // so an action never runs on a released inner. A weak capture gave
        // the inner a side table, which sends every retain and release of
        // it down the runtime's slow path (~250 instructions per value on
        // `receive(on: ImmediateScheduler)`, issue 32).
        deliverAction = { [unowned(unsafe) self] in self.runScheduled() }
    }

    @inlinable
    func receive(subscription: any Subscription) {
        let accepted = state.withLock { s -> Bool in
            guard case .awaitingSubscription = s.status else { return false }
            s.become(.subscribed(subscription))
            return true
        }
        guard accepted else {
            subscription.cancel()
            return
        }
        downstream.receive(subscription: self)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        let schedule = state.withLock { s -> Bool in
            guard s.accepting else { return false }
            s.pending.push(.value(input), owner: self)
            return true
        }
        if schedule { timing.schedule(deliverAction) }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        let schedule = state.withLock { s -> Bool in
            guard case .subscribed(let subscription) = s.status else { return false }
            s.become(.pendingTerminal(subscription))
            s.pending.push(.completion(completion), owner: self)
            return true
        }
        if schedule { timing.schedule(deliverAction) }
    }

    /// One scheduled action: delivers its event, and those of actions that
    /// ran meanwhile.
    @inlinable
    func runScheduled() {
        // The first step also counts this action in, under the same lock.
        var starting = true
        while true {
            let step = state.withLock { s -> Step in
                if starting && !s.pending.actionRan() { return .done(release: nil) }
                switch s.pending.next() {
                case .done(let owner):
                    return .done(release: owner)
                case .event(.some(.value(let value))):
                    // Values still pending when the subscriber cancelled
                    // are dropped; after the upstream completed they are not.
                    guard s.delivering else { return .skip }
                    return .deliver(.value(value))
                case .event(.some(.completion(let completion))):
                    s.become(.terminal)
                    return .deliver(.completion(completion))
                case .event(.none):
                    return .skip
                }
            }
            starting = false
            switch step {
            case .deliver(.value(let value)):
                let more = downstream.receive(value)
                if more.rawValue > 0 {
                    state.withLock { $0.status.subscription }?.request(more)
                }
            case .deliver(.completion(let completion)):
                downstream.receive(completion: completion)
            case .skip:
                continue
            case .done:
                return // the owner, if returned, is released here, outside the lock
            }
        }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        let subscription = state.withLock { s -> (any Subscription)? in
            guard case .subscribed(let subscription) = s.status else { return nil }
            return subscription
        }
        subscription?.request(demand)
    }

    @inlinable
    func cancel() {
        let subscription = state.withLock { s -> (any Subscription)? in
            guard case .subscribed(let subscription) = s.status else { return nil }
            s.become(.terminal)
            s.pending.dropPending()
            return subscription
        }
        subscription?.cancel()
    }
}

// Debug output only for the operators whose Combine subscription has it
// (conditional, so `delay`'s subscription is none of these, as Combine's).

extension ScheduledDeliveryInner: CustomStringConvertible where Timing: DescribedScheduledDeliveryTiming {
    @usableFromInline var description: String { Timing.operatorName }
}

extension ScheduledDeliveryInner: CustomReflectable where Timing: DescribedScheduledDeliveryTiming {
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension ScheduledDeliveryInner: CustomPlaygroundDisplayConvertible where Timing: DescribedScheduledDeliveryTiming {
    @usableFromInline var playgroundDescription: Any { Timing.operatorName }
}
