import Synchronization

extension Publisher {
    /// Delays delivery of all output to the downstream receiver by a
    /// specified amount of time on a particular scheduler.
    ///
    /// Every value and the completion (finished or failed) reach the
    /// subscriber `interval` after the upstream sent them, on `scheduler`,
    /// so their spacing is preserved. The subscription and demand pass
    /// through synchronously; demand the subscriber returns when a delayed
    /// value arrives goes upstream then.
    ///
    /// Cost: pending events wait in a ring buffer with their deadlines; one
    /// scheduled action is pending at a time (for the oldest event), and
    /// it delivers every event due when it runs. The scheduler's one-shot
    /// `schedule(after:)` is used, as in Combine, so cancelling does not
    /// unschedule that action: it runs at its deadline and finds nothing.
    ///
    /// ```swift
    /// let c = subject
    ///     .delay(for: .seconds(1), scheduler: loop)
    ///     .sink { print($0) } // each value one second after it was sent
    /// ```
    ///
    /// - Parameters:
    ///   - interval: The amount of time to delay.
    ///   - tolerance: The allowed tolerance in firing delayed events;
    ///     `nil` means the scheduler's minimum tolerance.
    ///   - scheduler: The scheduler to deliver the delayed events.
    ///   - options: Options relevant to the scheduler's behavior.
    @inlinable
    public func delay<S: Scheduler>(for interval: S.SchedulerTimeType.Stride,
                                    tolerance: S.SchedulerTimeType.Stride? = nil,
                                    scheduler: S,
                                    options: S.SchedulerOptions? = nil) -> Publishers.Delay<Self, S> {
        Publishers.Delay(upstream: self, interval: interval, tolerance: tolerance ?? scheduler.minimumTolerance,
                         scheduler: scheduler, options: options)
    }
}

extension Publishers {
    /// A publisher that delays delivery of elements and completion to the
    /// downstream receiver.
    ///
    /// ```swift
    /// let p = Publishers.Delay(upstream: Just(1), interval: .seconds(1), tolerance: .zero,
    ///                          scheduler: DispatchQueue.main, options: nil)
    /// ```
    public struct Delay<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream
        /// The amount of time to delay.
        public let interval: Context.SchedulerTimeType.Stride
        /// The allowed tolerance in firing delayed events.
        public let tolerance: Context.SchedulerTimeType.Stride
        /// The scheduler to deliver the delayed events.
        public let scheduler: Context
        /// Options relevant to the scheduler's behavior.
        public let options: Context.SchedulerOptions?

        /// Creates a publisher that delays `upstream`'s events by `interval`.
        @inlinable
        public init(upstream: Upstream, interval: Context.SchedulerTimeType.Stride,
                    tolerance: Context.SchedulerTimeType.Stride, scheduler: Context,
                    options: Context.SchedulerOptions? = nil) {
            self.upstream = upstream
            self.interval = interval
            self.tolerance = tolerance
            self.scheduler = scheduler
            self.options = options
        }

        /// Subscribes an inner subscriber to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = DelayInner<S, Context>(
                downstream: subscriber, interval: interval, tolerance: tolerance, scheduler: scheduler,
                options: options)
            upstream.receive(subscriber: inner)
        }
    }
}

/// Keeps (deadline, event) pairs in a ring and delivers them when due.
@usableFromInline
internal final class DelayInner<Downstream: Subscriber, Context: Scheduler>:
    Subscriber, Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure
    @usableFromInline typealias Time = Context.SchedulerTimeType

    @usableFromInline
    internal enum Event {
        case value(Input)
        case completion(Subscribers.Completion<Failure>)
    }

    @usableFromInline
    internal struct Pending {
        @usableFromInline let deadline: Time
        @usableFromInline let event: Event

        @inlinable
        init(deadline: Time, event: Event) {
            self.deadline = deadline
            self.event = event
        }
    }

    @usableFromInline
    internal struct State {
        @usableFromInline var status: SubscriptionStatus = .awaitingSubscription
        @usableFromInline var pending = RingBuffer<Pending>()
        /// A scheduled action is waiting for the oldest event.
        @usableFromInline var armed = false
        /// A delivery loop is running (`fire`), on some thread.
        @usableFromInline var delivering = false
        /// Holds `self` while events wait, since the scheduled action
        /// captures it weakly.
        @usableFromInline var keepAlive: AnyObject?

        @inlinable
        init() {}
    }

    @usableFromInline
    internal enum Step {
        case deliver(Event)
        case arm(Time)
        case stop(keepAlive: AnyObject?)
    }

    @usableFromInline let downstream: Downstream
    @usableFromInline let interval: Context.SchedulerTimeType.Stride
    @usableFromInline let tolerance: Context.SchedulerTimeType.Stride
    @usableFromInline let scheduler: Context
    @usableFromInline let options: Context.SchedulerOptions?
    @usableFromInline let state = Mutex(UncheckedSendable(State()))
    /// Formed once in `init`; captures `self` weakly. Written only there.
    @usableFromInline internal private(set) var fireAction: () -> Void = {}

    @inlinable
    init(downstream: Downstream, interval: Context.SchedulerTimeType.Stride,
         tolerance: Context.SchedulerTimeType.Stride, scheduler: Context,
         options: Context.SchedulerOptions?) {
        self.downstream = downstream
        self.interval = interval
        self.tolerance = tolerance
        self.scheduler = scheduler
        self.options = options
        fireAction = { [weak self] in self?.fire() }
    }

    @inlinable
    func receive(subscription: any Subscription) {
        let accepted = state.withLock { s -> Bool in
            guard case .awaitingSubscription = s.value.status else { return false }
            s.value.status = .subscribed(subscription)
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
        enqueue(.value(input), terminal: false)
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        enqueue(.completion(completion), terminal: true)
    }

    @inlinable
    func enqueue(_ event: Event, terminal: Bool) {
        let deadline = scheduler.now.advanced(by: interval)
        let arm = state.withLock { s -> Bool in
            guard case .subscribed(let subscription) = s.value.status else { return false }
            if terminal { s.value.status = .pendingTerminal(subscription) }
            s.value.pending.append(Pending(deadline: deadline, event: event))
            guard !s.value.armed && !s.value.delivering else { return false }
            s.value.armed = true
            s.value.keepAlive = self
            return true
        }
        if arm { scheduler.schedule(after: deadline, tolerance: tolerance, options: options, fireAction) }
    }

    /// Delivers every event that is due, then re-arms for the next one.
    @inlinable
    func fire() {
        let now = scheduler.now
        let start = state.withLock { s -> Bool in
            guard !s.value.delivering else { return false }
            s.value.delivering = true
            s.value.armed = false
            return true
        }
        guard start else { return }
        while true {
            let step = state.withLock { s -> UncheckedSendable<Step> in
                guard !s.value.status.isTerminal, let first = s.value.pending.first else {
                    s.value.delivering = false
                    let owner = s.value.keepAlive
                    s.value.keepAlive = nil
                    return UncheckedSendable(.stop(keepAlive: owner))
                }
                guard first.deadline <= now else {
                    s.value.delivering = false
                    s.value.armed = true
                    return UncheckedSendable(.arm(first.deadline))
                }
                _ = s.value.pending.popFirst()
                if case .completion = first.event { s.value.status = .terminal }
                return UncheckedSendable(.deliver(first.event))
            }
            switch step.value {
            case .deliver(.value(let value)):
                let more = downstream.receive(value)
                if more.rawValue > 0 { request(more) }
            case .deliver(.completion(let completion)):
                downstream.receive(completion: completion)
                let owner = state.withLock { s -> AnyObject? in
                    s.value.delivering = false
                    let owner = s.value.keepAlive
                    s.value.keepAlive = nil
                    return owner
                }
                _ = owner // released outside the lock
                return
            case .arm(let deadline):
                scheduler.schedule(after: deadline, tolerance: tolerance, options: options, fireAction)
                return
            case .stop:
                return
            }
        }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let subscription = state.withLock { s -> (any Subscription)? in
            guard case .subscribed(let subscription) = s.value.status else { return nil }
            return subscription
        }
        subscription?.request(demand)
    }

    @inlinable
    func cancel() {
        let taken = state.withLock { s -> UncheckedSendable<((any Subscription)?, AnyObject?)> in
            let upstream: (any Subscription)?
            switch s.value.status {
            case .subscribed(let subscription): upstream = subscription
            case .pendingTerminal: upstream = nil
            case .awaitingSubscription, .terminal: return UncheckedSendable((nil, nil))
            }
            s.value.status = .terminal
            s.value.pending.removeAll(keepingCapacity: false)
            let owner = s.value.delivering ? nil : s.value.keepAlive
            if !s.value.delivering { s.value.keepAlive = nil }
            return UncheckedSendable((upstream, owner))
        }
        taken.value.0?.cancel()
    }

    @usableFromInline var description: String { "Delay" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}
