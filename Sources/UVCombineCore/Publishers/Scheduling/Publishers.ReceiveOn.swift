extension Publisher {
    /// Specifies the scheduler on which to receive elements from the
    /// publisher.
    ///
    /// Values and the completion are delivered on `scheduler`, in the order
    /// the upstream sent them. The subscription itself reaches the
    /// subscriber synchronously, on the subscribing thread (Apple's
    /// documentation: `receive(on:options:)` "doesn't affect the scheduler
    /// used to call the subscriber's `receive(subscription:)` method"),
    /// and demand goes upstream on the thread that requests it. After
    /// `cancel()`, values already on their way to the scheduler are dropped.
    ///
    /// As in Combine, each value and the completion costs one
    /// `schedule(options:_:)` call on the scheduler, and the pipeline stays
    /// alive until every scheduled action has run. A `cancel()` drops the
    /// values still on their way, unless the upstream has already
    /// completed: then the remaining values and the completion still
    /// arrive (Combine ignores that cancel).
    ///
    /// Cost: pending values wait in a ring buffer and every action is the
    /// same pre-formed closure, so the operator allocates nothing per value
    /// once warm; each value costs what one `schedule(options:_:)` of the
    /// scheduler costs (nothing for `ImmediateScheduler`, a warmed-up
    /// `TestScheduler` or a `UVLoop`; one work item for a `DispatchQueue`).
    ///
    /// ```swift
    /// let c = subject
    ///     .receive(on: DispatchQueue.main)
    ///     .sink { label.text = $0 }
    /// ```
    @inlinable
    public func receive<S: Scheduler>(on scheduler: S, options: S.SchedulerOptions? = nil)
        -> Publishers.ReceiveOn<Self, S>
    {
        Publishers.ReceiveOn(upstream: self, scheduler: scheduler, options: options)
    }
}

extension Publishers {
    /// A publisher that delivers elements to its downstream subscriber on a
    /// specific scheduler.
    ///
    /// ```swift
    /// let p = Publishers.ReceiveOn(upstream: Just(1), scheduler: ImmediateScheduler.shared, options: nil)
    /// ```
    public struct ReceiveOn<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The upstream's output type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The scheduler the publisher is to use for element delivery.
        public let scheduler: Context
        /// Scheduler options that customize the delivery of elements.
        public let options: Context.SchedulerOptions?

        /// Creates a publisher that delivers `upstream`'s elements on
        /// `scheduler`.
        @inlinable
        public init(upstream: Upstream, scheduler: Context, options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.scheduler = scheduler
            self.options = options
        }

        /// Subscribes an inner subscriber to the upstream.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = ScheduledDeliveryInner<S, ReceiveOnTiming<Context>>(
                downstream: subscriber, timing: ReceiveOnTiming(scheduler: scheduler, options: options))
            upstream.receive(subscriber: inner)
        }
    }
}

/// `receive(on:)`'s scheduling for ``ScheduledDeliveryInner``: every event
/// with `schedule(options:_:)`, at once.
@usableFromInline
internal struct ReceiveOnTiming<Context: Scheduler>: DescribedScheduledDeliveryTiming {
    @usableFromInline let scheduler: Context
    @usableFromInline let options: Context.SchedulerOptions?

    @inlinable
    init(scheduler: Context, options: Context.SchedulerOptions?) {
        self.scheduler = scheduler
        self.options = options
    }

    @inlinable
    static var operatorName: String { "ReceiveOn" }

    @inlinable
    func schedule(_ action: @escaping () -> Void) {
        scheduler.schedule(options: options, action)
    }
}
