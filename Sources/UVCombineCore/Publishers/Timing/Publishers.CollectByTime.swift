import Synchronization

extension Publisher {
    /// Collects elements by a given time-grouping strategy, and emits a
    /// single array of the collection.
    ///
    /// One repeating action on the strategy's scheduler, scheduled at
    /// subscription, fires every `stride`; each firing sends what was
    /// collected since the previous one, if anything (an empty window sends
    /// nothing) and if the subscriber has demand (otherwise collecting goes
    /// on into the next window). With `.byTimeOrCount`, a buffer that
    /// reaches `count` elements is sent through the scheduler right away
    /// (`schedule(options:)`), without moving the periodic schedule.
    ///
    /// The upstream's completion goes through the scheduler as well: on
    /// `.finished` what was collected is sent, then `.finished` (once the
    /// subscriber has demand for that last array); on a failure the
    /// collected elements are dropped and the failure is forwarded.
    ///
    /// Demand, as Combine's: `.byTime` asks the upstream for one element per
    /// request of the subscriber and one more with every element it
    /// receives, so it collects without bound. `.byTimeOrCount` asks for
    /// `count × n` elements when the subscriber requests `n` arrays, and for
    /// `count × d` more when the subscriber returns `d` for an array sent
    /// because it was full. The stride must be positive.
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
///
/// Every event that reaches the downstream goes through the scheduler, as
/// in Combine (since its 2021 releases): the periodic action sends windows,
/// `schedule(options:)` actions send full `.byTimeOrCount` windows and the
/// completion. Those one-shot actions hold the inner until they ran (the
/// periodic one holds it weakly and is cancelled on completion and cancel).
@usableFromInline
internal final class CollectByTimeInner<Input, Downstream: Subscriber, Context: Scheduler>:
    Subscriber, Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == [Input]
{
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline
    internal enum Phase {
        case awaitingSubscription
        case active(any Subscription)
        /// The upstream completed; the completion waits on the scheduler.
        case ending
        /// `.finished` ran with elements left and no demand for them.
        case finishAwaitingDemand
        case done
    }

    /// What `request` does after the lock, decided under it.
    @usableFromInline
    internal enum RequestStep {
        case nothing
        /// Ask the upstream; send a full window that was put back.
        case ask(any Subscription, [Input]?)
        /// The last window and `.finished`, which waited for demand.
        case finish([Input])
    }

    @usableFromInline
    internal struct State {
        @usableFromInline var phase = Phase.awaitingSubscription
        @usableFromInline var demand: Subscribers.Demand = .none
        @usableFromInline var buffer: [Input] = []
        @usableFromInline var timer: (any Cancellable)?

        @inlinable
        init() {}

        /// Whether windows may still go downstream.
        @inlinable
        var isOpen: Bool {
            switch phase {
            case .active, .ending: return true
            case .awaitingSubscription, .finishAwaitingDemand, .done: return false
            }
        }

        /// Takes the buffer as a window if the downstream has demand for it.
        @inlinable
        mutating func takeWindow() -> [Input]? {
            guard !buffer.isEmpty, demand.rawValue > 0 else { return nil }
            if !demand.isUnlimited { demand -= 1 }
            defer { buffer = [] }
            return buffer
        }
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

    /// Hands the downstream its subscription, then schedules the periodic
    /// action. Requests nothing by itself: the downstream's requests do.
    @inlinable
    func receive(subscription: any Subscription) {
        let accepted = state.withLock { s -> Bool in
            guard case .awaitingSubscription = s.phase else { return false }
            s.phase = .active(subscription)
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
            guard case .active = s.phase else { return timer }
            s.timer = timer
            return nil
        }
        stale?.cancel()
    }

    /// `.byTime` answers every element with `.max(1)`; `.byTimeOrCount`
    /// with nothing, and hands a full buffer to the scheduler.
    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        let full = state.withLock { s -> [Input]? in
            guard case .active = s.phase else { return nil }
            s.buffer.append(input)
            guard let count, s.buffer.count >= count else { return nil }
            defer {
                s.buffer = []
                s.buffer.reserveCapacity(count)
            }
            return s.buffer
        }
        if let full { scheduleFull(full) }
        return count == nil ? .max(1) : .none
    }

    /// Sends a full `.byTimeOrCount` window from the scheduler.
    @inlinable
    func scheduleFull(_ window: [Input]) {
        scheduler.schedule(options: options) { self.sendFull(window) }
    }

    /// The downstream's answer to a full window goes upstream, times
    /// `count`. Without demand (only an upstream that sent more than it was
    /// asked for gets here) the window goes back in front of the buffer.
    @inlinable
    func sendFull(_ window: [Input]) {
        let send = state.withLock { s -> Bool in
            guard s.isOpen else { return false }
            guard s.demand.rawValue > 0 else {
                s.buffer = window + s.buffer
                return false
            }
            if !s.demand.isUnlimited { s.demand -= 1 }
            return true
        }
        guard send else { return }
        let more = downstream.receive(window)
        guard more.rawValue > 0, let count else { return }
        let upstream = state.withLock { s -> (any Subscription)? in
            guard s.isOpen else { return nil }
            s.demand += more
            guard case .active(let subscription) = s.phase else { return nil }
            return subscription
        }
        upstream?.request(more * count)
    }

    /// The periodic action: sends the window if it holds anything and the
    /// downstream has demand. What the downstream returns only adds to its
    /// demand (no upstream request, as in Combine).
    @inlinable
    func tick() {
        let window = state.withLock { s -> [Input]? in
            guard case .active = s.phase else { return nil }
            return s.takeWindow()
        }
        guard let window else { return }
        let more = downstream.receive(window)
        if more.rawValue > 0 {
            state.withLock { s in if s.isOpen { s.demand += more } }
        }
    }

    /// Stops the periodic action, lets go of the upstream, and schedules
    /// the completion.
    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        let timer = state.withLock { s -> (any Cancellable)?? in
            guard case .active = s.phase else { return nil }
            s.phase = .ending
            defer { s.timer = nil }
            return .some(s.timer)
        }
        guard let timer else { return }
        timer?.cancel()
        scheduler.schedule(options: options) { self.complete(completion) }
    }

    @inlinable
    func complete(_ completion: Subscribers.Completion<Failure>) {
        let window = state.withLock { s -> [Input]?? in
            guard case .ending = s.phase else { return nil }
            if case .failure = completion {
                s.phase = .done
                s.buffer = []
                return .some(nil)
            }
            if s.buffer.isEmpty {
                s.phase = .done
                return .some(nil)
            }
            guard let window = s.takeWindow() else {
                s.phase = .finishAwaitingDemand
                return nil
            }
            s.phase = .done
            return .some(window)
        }
        guard let window else { return }
        if let window { _ = downstream.receive(window) }
        downstream.receive(completion: completion)
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        // `.none` is accepted and adds nothing (Combine does not trap).
        guard demand.rawValue > 0 else { return }
        let next = state.withLock { s -> RequestStep in
            switch s.phase {
            case .active(let subscription):
                s.demand += demand
                // A full window put back for want of demand goes out again.
                var full: [Input]? = nil
                if let count, s.buffer.count >= count {
                    full = s.buffer
                    s.buffer = []
                }
                return .ask(subscription, full)
            case .ending:
                s.demand += demand
                return .nothing
            case .finishAwaitingDemand:
                s.phase = .done
                defer { s.buffer = [] }
                return .finish(s.buffer)
            case .awaitingSubscription, .done:
                return .nothing
            }
        }
        switch next {
        case .nothing:
            return
        case .ask(let upstream, let full):
            if let full { scheduleFull(full) }
            upstream.request(count.map { demand * $0 } ?? .max(1))
        case .finish(let window):
            _ = downstream.receive(window)
            downstream.receive(completion: .finished)
        }
    }

    @inlinable
    func cancel() {
        let taken = state.withLock { s -> ((any Subscription)?, (any Cancellable)?) in
            let upstream: (any Subscription)?
            switch s.phase {
            case .done: return (nil, nil)
            case .active(let subscription): upstream = subscription
            case .awaitingSubscription, .ending, .finishAwaitingDemand: upstream = nil
            }
            s.phase = .done
            s.buffer = []
            defer { s.timer = nil }
            return (upstream, s.timer)
        }
        taken.1?.cancel()
        taken.0?.cancel()
    }

    @usableFromInline var description: String { "CollectByTime" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}
