import Synchronization

extension Publisher {
    /// Terminates publishing if the upstream publisher exceeds the specified
    /// time interval without producing an element.
    ///
    /// The clock starts at subscription and restarts at the first request
    /// and at every value. When `interval` passes without a value, the
    /// upstream is cancelled and the subscriber receives `.finished`, or
    /// `.failure(customError())` when `customError` is given. The timeout
    /// fires exactly at the deadline, never before; a value arriving at
    /// the deadline instant itself (ahead of the timer in the scheduler's
    /// order) restarts the clock.
    ///
    /// As in Combine, values and the completion are delivered on
    /// `scheduler`, in order, one `schedule(options:_:)` call each; every
    /// (re)start of the clock reads `now` and `minimumTolerance` and
    /// schedules a fresh cancellable action (`schedule(after:interval:
    /// tolerance:options:)`), cancelling the previous one. When the clock
    /// fires, the upstream is cancelled and the completion is delivered
    /// right away from the clock's action; values received but not yet
    /// delivered are dropped. The pipeline stays alive until its scheduled
    /// actions have run or the clock was cancelled.
    ///
    /// ```swift
    /// let c = session.dataTaskPublisher(for: url)
    ///     .timeout(.seconds(5), scheduler: loop, customError: { URLError(.timedOut) })
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0.response.status) })
    /// ```
    @inlinable
    public func timeout<S: Scheduler>(_ interval: S.SchedulerTimeType.Stride,
                                      scheduler: S,
                                      options: S.SchedulerOptions? = nil,
                                      customError: (() -> Failure)? = nil) -> Publishers.Timeout<Self, S> {
        Publishers.Timeout(upstream: self, interval: interval, scheduler: scheduler, options: options,
                           customError: customError)
    }
}

extension Publishers {
    /// A publisher that terminates publishing if the upstream exceeds a
    /// time interval without producing an element.
    ///
    /// ```swift
    /// let p = Publishers.Timeout(upstream: subject, interval: .seconds(5), scheduler: DispatchQueue.main,
    ///                            options: nil, customError: nil)
    /// ```
    public struct Timeout<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The maximum time interval the publisher can go without emitting an
        /// element, expressed in the time system of the scheduler.
        public let interval: Context.SchedulerTimeType.Stride
        /// The scheduler on which to deliver events.
        public let scheduler: Context
        /// Scheduler options that customize the delivery of elements.
        public let options: Context.SchedulerOptions?
        /// A closure that executes if the publisher times out. The publisher
        /// sends the failure returned by this closure to the subscriber as
        /// the reason for termination.
        public let customError: (() -> Upstream.Failure)?

        /// Creates a timeout publisher.
        @inlinable
        public init(upstream: Upstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context,
                    options: Context.SchedulerOptions?, customError: (() -> Upstream.Failure)?) {
            self.upstream = upstream
            self.interval = interval
            self.scheduler = scheduler
            self.options = options
            self.customError = customError
        }

        /// Subscribes an inner subscriber to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = TimeoutInner<S, Context>(
                downstream: subscriber, interval: interval, scheduler: scheduler, options: options,
                customError: customError)
            upstream.receive(subscriber: inner)
        }
    }
}

/// Values and completion go through ``ScheduledEvents`` (one scheduled
/// action each); the clock is a cancellable repeating action, replaced at
/// every restart, as in Combine.
@usableFromInline
internal final class TimeoutInner<Downstream: Subscriber, Context: Scheduler>:
    Subscriber, Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure
    @usableFromInline typealias Time = Context.SchedulerTimeType

    @usableFromInline
    internal struct State {
        /// `pendingTerminal` once the upstream completed and its
        /// completion waits for its scheduled delivery.
        @usableFromInline var status: SubscriptionStatus = .awaitingSubscription
        @usableFromInline var pending = ScheduledEvents<Input, Failure>()
        @usableFromInline var didTimeout = false
        @usableFromInline var requestedOnce = false
        /// The clock's current action; `generation` tells a clock armed
        /// outside the lock whether it is still the current one.
        @usableFromInline var clock: (any Cancellable)?
        @usableFromInline var generation: UInt64 = 0

        @inlinable
        init() {}

        /// Starts a new clock generation; returns the clock to cancel.
        @inlinable
        mutating func restart() -> (UInt64, (any Cancellable)?) {
            generation &+= 1
            let old = clock
            clock = nil
            return (generation, old)
        }
    }

    @usableFromInline
    internal enum Step {
        case deliver(ScheduledEvent<Input, Failure>)
        case skip
        case done(release: AnyObject?)
    }

    @usableFromInline let downstream: Downstream
    @usableFromInline let interval: Context.SchedulerTimeType.Stride
    @usableFromInline let scheduler: Context
    @usableFromInline let options: Context.SchedulerOptions?
    @usableFromInline let customError: (() -> Failure)?
    @usableFromInline let state = Locked(State())
    /// The action scheduled for every event, formed once in `init`;
    /// captures `self` weakly (``ScheduledEvents`` holds `self` while
    /// actions are pending). Written only there.
    @usableFromInline internal private(set) var deliverAction: () -> Void = {}

    @inlinable
    init(downstream: Downstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context,
         options: Context.SchedulerOptions?, customError: (() -> Failure)?) {
        self.downstream = downstream
        self.interval = interval
        self.scheduler = scheduler
        self.options = options
        self.customError = customError
        deliverAction = { [weak self] in self?.runScheduled() }
    }

    @inlinable
    func receive(subscription: any Subscription) {
        let accepted = state.withLock { s -> Bool in
            guard case .awaitingSubscription = s.status else { return false }
            s.status = .subscribed(subscription)
            return true
        }
        guard accepted else {
            subscription.cancel()
            return
        }
        // Combine starts the clock before handing the subscription down;
        // here it starts right after, so that a scheduler that runs the
        // clock at once (`ImmediateScheduler`) cannot complete the
        // subscriber before it has its subscription. The calls the
        // scheduler sees are the same.
        downstream.receive(subscription: self)
        restartClock { _ in true }
    }

    /// Cancels the current clock and starts a new one, when `update` agrees
    /// (under the lock) and the subscription is active. The clock captures
    /// `self` strongly, as Combine's does, until it is cancelled.
    @inlinable
    func restartClock(_ update: (inout State) -> Bool) {
        let restart = state.withLock { s -> (UInt64, (any Cancellable)?)? in
            guard s.status.isSubscribed, !s.didTimeout, update(&s) else { return nil }
            return s.restart()
        }
        guard let (generation, old) = restart else { return }
        old?.cancel()
        let clock = scheduler.schedule(after: scheduler.now.advanced(by: interval), interval: interval,
                                       tolerance: scheduler.minimumTolerance, options: options) {
            self.timedOut(generation)
        }
        let stale = state.withLock { s -> Bool in
            guard s.generation == generation, s.status.isSubscribed, !s.didTimeout else {
                return true
            }
            s.clock = clock
            return false
        }
        if stale { clock.cancel() }
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        restartClock { _ in true }
        let schedule = state.withLock { s -> Bool in
            guard s.status.isSubscribed, !s.didTimeout else { return false }
            s.pending.push(.value(input), owner: self)
            return true
        }
        if schedule { scheduler.schedule(options: options, deliverAction) }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        let clock = state.withLock { s -> (any Cancellable)?? in
            guard case .subscribed(let subscription) = s.status else { return nil }
            s.status = .pendingTerminal(subscription)
            s.pending.push(.completion(completion), owner: self)
            return s.restart().1
        }
        guard let clock else { return }
        clock?.cancel()
        scheduler.schedule(options: options, deliverAction)
    }

    @inlinable
    func timedOut(_ generation: UInt64) {
        let taken = state.withLock { s -> (any Subscription, (any Cancellable)?)? in
            guard !s.didTimeout, s.generation == generation,
                  case .subscribed(let subscription) = s.status else { return nil }
            s.didTimeout = true
            s.status = .terminal
            s.pending.dropPending()
            return (subscription, s.restart().1)
        }
        guard let (subscription, clock) = taken else { return }
        clock?.cancel()
        subscription.cancel()
        downstream.receive(completion: customError.map { .failure($0()) } ?? .finished)
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
                    guard !s.didTimeout, s.status.subscription != nil else {
                        return .skip
                    }
                    return .deliver(.value(value))
                case .event(.some(.completion(let completion))):
                    guard case .pendingTerminal = s.status else { return .skip }
                    s.status = .terminal
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
        // Combine restarts the clock at the first request and forwards
        // every request, `.none` included.
        restartClock { state in
            if state.requestedOnce { return false }
            state.requestedOnce = true
            return true
        }
        state.withLock { $0.status.subscription }?.request(demand)
    }

    @inlinable
    func cancel() {
        let taken = state.withLock { s -> ((any Subscription)?, (any Cancellable)?) in
            // A completion waiting for delivery is dropped too: Combine's
            // operator counts as subscribed until it delivers it.
            guard let subscription = s.status.subscription else { return (nil, nil) }
            s.status = .terminal
            s.pending.dropPending()
            return (subscription, s.restart().1)
        }
        taken.1?.cancel()
        taken.0?.cancel()
    }

    @usableFromInline var description: String { "Timeout" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}
