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
    /// As in Combine, each value and the completion costs one
    /// `schedule(after:tolerance:options:)` call (at `now + interval`, so
    /// equal deadlines are not merged), the pipeline stays alive until
    /// every scheduled action has run, and a `cancel()` after the upstream
    /// completed is ignored: the remaining values and the completion still
    /// arrive. Scheduled actions are not unscheduled by `cancel()`; they run
    /// at their deadline and deliver nothing.
    ///
    /// Cost: pending events wait in a ring buffer and every action is the
    /// same pre-formed closure, so the operator allocates nothing per value
    /// once warm beyond what the scheduler's `schedule(after:)` costs.
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
            let timing = DelayTiming(interval: interval, tolerance: tolerance, scheduler: scheduler,
                                     options: options)
            let inner = ScheduledDeliveryInner<S, DelayTiming<Context>>(downstream: subscriber, timing: timing)
            upstream.receive(subscriber: inner)
        }
    }
}

/// `delay`'s scheduling for ``ScheduledDeliveryInner``: Combine's calls for
/// each event, `now`, then one `schedule(after:tolerance:options:)` at
/// `now + interval` (equal deadlines are not merged). Like Combine's, the
/// subscription customises neither its description nor its mirror.
@usableFromInline
internal struct DelayTiming<Context: Scheduler>: ScheduledDeliveryTiming {
    @usableFromInline let interval: Context.SchedulerTimeType.Stride
    @usableFromInline let tolerance: Context.SchedulerTimeType.Stride
    @usableFromInline let scheduler: Context
    @usableFromInline let options: Context.SchedulerOptions?

    @inlinable
    init(interval: Context.SchedulerTimeType.Stride, tolerance: Context.SchedulerTimeType.Stride,
         scheduler: Context, options: Context.SchedulerOptions?) {
        self.interval = interval
        self.tolerance = tolerance
        self.scheduler = scheduler
        self.options = options
    }

    @inlinable
    func schedule(_ action: @escaping () -> Void) {
        scheduler.schedule(after: scheduler.now.advanced(by: interval), tolerance: tolerance,
                           options: options, action)
    }
}
