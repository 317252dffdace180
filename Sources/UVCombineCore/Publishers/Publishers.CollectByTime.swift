import Synchronization

extension Publisher {
    /// Collects elements by a given time-grouping strategy, and emits a
    /// single array of the collection.
    ///
    /// A periodic action on the strategy's scheduler fires every `stride`
    /// from subscription; each firing sends what was collected since the
    /// previous one, if anything (an empty window sends nothing). With
    /// `.byTimeOrCount`, a full buffer of `count` elements is sent at once,
    /// on the upstream's thread, without moving the periodic schedule.
    ///
    /// If the upstream finishes, what was collected is sent, then
    /// `.finished`. If it fails, the collected elements are dropped and the
    /// failure is forwarded.
    ///
    /// Demand: `.byTime` asks the upstream for `.unlimited`; a window that
    /// ends while the subscriber has no demand keeps collecting into the next
    /// one. `.byTimeOrCount` asks for `count × n` elements when the
    /// subscriber requests `n` arrays. The stride must be positive.
    ///
    /// ```swift
    /// let c = readings
    ///     .collect(.byTimeOrCount(loop, .seconds(1), 100))
    ///     .sink { batch in store(batch) } // at most 100 per array, at least once a second
    /// ```
    @inlinable
    public func collect<S: Scheduler>(_ strategy: Publishers.TimeGroupingStrategy<S>,
                                      options: S.SchedulerOptions? = nil) -> Publishers.CollectByTime<Self, S> {
        Publishers.CollectByTime(upstream: self, strategy: strategy, options: options)
    }
}

extension Publishers {
    /// A strategy for collecting received elements.
    ///
    /// ```swift
    /// let strategy: Publishers.TimeGroupingStrategy<DispatchQueue> = .byTime(.main, .seconds(5))
    /// ```
    public enum TimeGroupingStrategy<Context: Scheduler> {
        /// A grouping that collects and periodically publishes items.
        case byTime(Context, Context.SchedulerTimeType.Stride)
        /// A grouping that collects and publishes items periodically or when
        /// a buffer reaches a maximum size.
        case byTimeOrCount(Context, Context.SchedulerTimeType.Stride, Int)

        @inlinable
        internal var parts: (scheduler: Context, stride: Context.SchedulerTimeType.Stride, count: Int?) {
            switch self {
            case .byTime(let scheduler, let stride): return (scheduler, stride, nil)
            case .byTimeOrCount(let scheduler, let stride, let count): return (scheduler, stride, count)
            }
        }
    }

    /// A publisher that buffers and periodically publishes its items.
    ///
    /// ```swift
    /// let p = Publishers.CollectByTime(upstream: subject, strategy: .byTime(DispatchQueue.main, .seconds(1)),
    ///                                  options: nil)
    /// ```
    public struct CollectByTime<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// Arrays of the upstream's elements.
        public typealias Output = [Upstream.Output]
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The strategy with which to collect and publish elements.
        public let strategy: TimeGroupingStrategy<Context>
        /// Scheduler options to use for the strategy.
        public let options: Context.SchedulerOptions?

        /// Creates a publisher that buffers and periodically publishes its items.
        @inlinable
        public init(upstream: Upstream, strategy: TimeGroupingStrategy<Context>, options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.strategy = strategy
            self.options = options
        }

        /// Subscribes an inner subscriber to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let parts = strategy.parts
            let inner = CollectByTimeInner<Upstream.Output, S, Context>(
                downstream: subscriber, scheduler: parts.scheduler, stride: parts.stride, count: parts.count,
                options: options)
            upstream.receive(subscriber: inner)
        }
    }
}

/// Collects into a buffer; a periodic action sends it.
@usableFromInline
internal final class CollectByTimeInner<Input, Downstream: Subscriber, Context: Scheduler>:
    Subscriber, Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == [Input]
{
        @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline
    internal struct State {
        @usableFromInline var status: SubscriptionStatus = .awaitingSubscription
        @usableFromInline var demand: Subscribers.Demand = .none
        @usableFromInline var buffer: [Input] = []
        @usableFromInline var timer: (any Cancellable)?
        /// The upstream finished while arrays were waiting for demand.
        @usableFromInline var finishPending = false

        @inlinable
        init() {}
    }

    @usableFromInline
    internal enum Action {
        case none
        case send([Input])
        case sendAndFinish([Input]?)
    }

    @usableFromInline let downstream: Downstream
    @usableFromInline let scheduler: Context
    @usableFromInline let stride: Context.SchedulerTimeType.Stride
    @usableFromInline let count: Int?
    @usableFromInline let options: Context.SchedulerOptions?
    @usableFromInline let state = Locked(State())

    @inlinable
    init(downstream: Downstream, scheduler: Context, stride: Context.SchedulerTimeType.Stride, count: Int?,
         options: Context.SchedulerOptions?) {
        precondition(count.map { $0 > 0 } ?? true,
                     "UVCombine API violation: collect(.byTimeOrCount): the count must be positive")
        self.downstream = downstream
        self.scheduler = scheduler
        self.stride = stride
        self.count = count
        self.options = options
    }

    deinit {
        state.withLock { $0.timer }?.cancel()
    }

    @inlinable
    func receive(subscription: any Subscription) {
        let accepted = state.withLock { s -> Bool in
            guard case .awaitingSubscription = s.status else { return false }
            s.status = .subscribed(subscription)
            if let count { s.buffer.reserveCapacity(count) }
            return true
        }
        guard accepted else {
            subscription.cancel()
            return
        }
        downstream.receive(subscription: self)
        let timer = scheduler.schedule(after: scheduler.now.advanced(by: stride), interval: stride,
                                       tolerance: scheduler.minimumTolerance, options: options) { [weak self] in
            self?.tick()
        }
        let stale = state.withLock { s -> (any Cancellable)? in
            guard s.status.isSubscribed else { return timer }
            s.timer = timer
            return nil
        }
        stale?.cancel()
        if count == nil { subscription.request(.unlimited) }
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        let action = state.withLock { s -> Action in
            guard s.status.isSubscribed else { return .none }
            s.buffer.append(input)
            guard let count, s.buffer.count >= count else { return .none }
            return s.takeBatch()
        }
        perform(action)
        return .none
    }

    @inlinable
    func tick() {
        let action = state.withLock { s -> Action in
            guard s.status.isSubscribed, !s.buffer.isEmpty else { return .none }
            return s.takeBatch()
        }
        perform(action)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        let taken = state.withLock { s -> (Action, (any Cancellable)?)? in
            guard case .subscribed(let subscription) = s.status else { return nil }
            let timer = s.timer
            s.timer = nil
            switch completion {
            case .failure:
                s.status = .terminal
                s.buffer = []
                return (.none, timer)
            case .finished:
                if s.buffer.isEmpty {
                    s.status = .terminal
                    return (.sendAndFinish(nil), timer)
                }
                guard s.demand.rawValue > 0 else {
                    s.status = .pendingTerminal(subscription)
                    s.finishPending = true
                    return (.none, timer)
                }
                s.status = .terminal
                let batch = s.buffer
                s.buffer = []
                return (.sendAndFinish(batch), timer)
            }
        }
        guard let taken else { return }
        taken.1?.cancel()
        if case .failure = completion {
            downstream.receive(completion: completion)
        } else {
            perform(taken.0)
        }
    }

    @inlinable
    func perform(_ action: Action) {
        switch action {
        case .none:
            return
        case .send(let batch):
            let more = downstream.receive(batch)
            if more.rawValue > 0 { addDemand(more) }
        case .sendAndFinish(let batch):
            if let batch { _ = downstream.receive(batch) }
            downstream.receive(completion: .finished)
        }
    }

    @inlinable
    func addDemand(_ demand: Subscribers.Demand) {
        let (upstream, action) = state.withLock { s -> ((any Subscription)?, Action) in
            switch s.status {
            case .subscribed(let subscription):
                s.demand += demand
                var action = Action.none
                if let count, s.buffer.count >= count { action = s.takeBatch() }
                return (count == nil ? nil : subscription, action)
            case .pendingTerminal where s.finishPending:
                s.status = .terminal
                s.finishPending = false
                let batch = s.buffer
                s.buffer = []
                return (nil, .sendAndFinish(batch))
            default:
                return (nil, .none)
            }
        }
        if let upstream, let count { upstream.request(demand * count) }
        perform(action)
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        // `.none` is accepted and adds nothing (Combine does not trap).
        guard demand.rawValue > 0 else { return }
        addDemand(demand)
    }

    @inlinable
    func cancel() {
        let taken = state.withLock { s -> ((any Subscription)?, (any Cancellable)?) in
            guard !s.status.isTerminal else { return (nil, nil) }
            let upstream = s.status.isSubscribed ? s.status.subscription : nil
            s.status = .terminal
            s.buffer = []
            s.finishPending = false
            let timer = s.timer
            s.timer = nil
            return (upstream, timer)
        }
        taken.1?.cancel()
        taken.0?.cancel()
    }

    @usableFromInline var description: String { "CollectByTime" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}

extension CollectByTimeInner.State {
    /// Takes the buffer as a batch when there is demand for it.
    @inlinable
    mutating func takeBatch() -> CollectByTimeInner.Action {
        guard demand.rawValue > 0 else { return .none }
        if !demand.isUnlimited { demand -= 1 }
        let batch = buffer
        buffer = []
        return .send(batch)
    }
}
