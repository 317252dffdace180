import Synchronization

/// A connectable publisher that repeatedly emits the scheduler's current
/// time on a given interval, over any ``Scheduler``.
///
/// UVCombine's own API (Combine has no scheduler-generic timer): it carries
/// a project name so that code which defines its own `Publishers.Timer` or
/// `Scheduler.timerPublisher(every:)`, as some Combine libraries do, still
/// compiles against UVCombine. Create one with
/// ``publish(every:tolerance:on:options:)`` (shaped like Foundation's
/// `Timer.publish(every:on:in:)` and `UVTimer.publish(every:on:)`) or the
/// initialiser.
///
/// Semantics follow Combine's `Timer.TimerPublisher`:
/// - Nothing happens until ``connect()``; the first value comes one
///   `interval` after it, then one every `interval` on a fixed schedule
///   (the scheduler's repeating action).
/// - Subscribers share the timer. A tick reaches each subscriber that
///   has outstanding demand; for the others it is dropped, not queued.
/// - ``connect()`` returns the cancellable that stops the timer; keep
///   it. While connected, the scheduler holds the timer (as a run loop
///   holds a Foundation timer). Each `connect()` starts its own
///   repeating action, as each connect of Foundation's timer publisher
///   schedules its own `Timer` (and as `UVTimer` starts its own
///   `uv_timer`): connected twice, subscribers get the ticks of both.
/// - Cancelling a connection stops its ticks and detaches every
///   subscriber attached at that moment, as Foundation's does: they get
///   no more values, from any connection, and no completion (a timer
///   never completes). Subscribers that attach later are served by the
///   connections still running or made later.
///
/// Threading: values arrive on the scheduler (a `UVLoop` timer ticks on
/// its loop thread). `connect`, `cancel` and subscribing may happen on
/// any thread. Each tick allocates nothing.
///
/// ```swift
/// let scheduler = DispatchQueue.test
/// let timer = UVSchedulerTimer.publish(every: .seconds(1), on: scheduler)
/// let c = timer.sink { print(scheduler.now) }
/// let connection = timer.connect()
/// scheduler.advance(by: .seconds(3)) // three ticks
/// connection.cancel()
/// ```
public final class UVSchedulerTimer<Context: Scheduler>: Publisher, ConduitParent, CustomStringConvertible {
    /// The scheduler's time at each tick.
    public typealias Output = Context.SchedulerTimeType
    /// A timer never fails.
    public typealias Failure = Never

    /// The time between ticks.
    public let interval: Context.SchedulerTimeType.Stride
    /// The tolerance passed to the scheduler; `nil` uses its minimum.
    public let tolerance: Context.SchedulerTimeType.Stride?
    /// The scheduler that runs the timer.
    public let scheduler: Context
    /// Options passed to the scheduler.
    public let options: Context.SchedulerOptions?

    /// The running connections (usually one) and their actions.
    @usableFromInline internal let state = Locked(TimerConnections())
    /// The subscribers and their demand: the subjects' engine, so a tick
    /// is delivered exactly as `PassthroughSubject.send` delivers (one
    /// lock per tick, none per subscriber, drop without demand).
    @usableFromInline internal let engine = SubjectEngine<Output, Never>(latest: nil)

    /// Creates a timer publisher.
    ///
    /// ```swift
    /// let timer = UVSchedulerTimer(every: .milliseconds(100), scheduler: DispatchQueue.main)
    /// ```
    public init(every interval: Context.SchedulerTimeType.Stride,
                tolerance: Context.SchedulerTimeType.Stride? = nil,
                scheduler: Context,
                options: Context.SchedulerOptions? = nil) {
        self.interval = interval
        self.tolerance = tolerance
        self.scheduler = scheduler
        self.options = options
    }

    /// Returns a timer publisher that ticks every `interval` on `scheduler`
    /// once connected; the same as the initialiser, named like Foundation's
    /// `Timer.publish(every:on:in:)`.
    ///
    /// Threading: as the publisher's (values arrive on `scheduler`).
    ///
    /// ```swift
    /// let timer = UVSchedulerTimer.publish(every: .seconds(1), on: loop)
    /// let c = timer.sink { print("tick at \($0)") }
    /// let connection = timer.connect()
    /// ```
    @inlinable
    public static func publish(every interval: Context.SchedulerTimeType.Stride,
                               tolerance: Context.SchedulerTimeType.Stride? = nil,
                               on scheduler: Context,
                               options: Context.SchedulerOptions? = nil) -> UVSchedulerTimer<Context> {
        UVSchedulerTimer(every: interval, tolerance: tolerance, scheduler: scheduler, options: options)
    }

    deinit {
        // Normally empty: a running connection's action holds the
        // timer. This covers schedulers that drop their actions.
        for running in state.withLock({ $0.running }) { running.repeating?.cancel() }
    }

    /// Attaches `subscriber`; it receives ticks while it has demand.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        let conduit = SubjectConduit(parent: self, downstream: subscriber, name: "Timer")
        // A timer never completes, so attaching always succeeds.
        _ = engine.attach(conduit, replaysLatest: false)
        subscriber.receive(subscription: conduit)
    }

    /// Starts a new repeating action on the scheduler and returns the
    /// cancellable that stops it. Every call starts another one.
    ///
    /// ```swift
    /// let connection = timer.connect()
    /// connection.cancel() // stops the ticks, detaches the subscribers
    /// ```
    public func connect() -> any Cancellable {
        let id = state.withLock { $0.add() }
        let connection = Connection(timer: self, id: id)
        let start = scheduler.now.advanced(by: interval)
        let repeating = scheduler.schedule(after: start, interval: interval,
                                           tolerance: tolerance ?? scheduler.minimumTolerance,
                                           options: options) { self.fire(id) }
        // Cancelled meanwhile (from another thread): stop the action here.
        let stale = state.withLock { s -> (any Cancellable)? in
            s.setRepeating(repeating, for: id) ? nil : repeating
        }
        stale?.cancel()
        return connection
    }

    @usableFromInline
    internal func fire(_ id: UInt64) {
        let now = scheduler.now
        // A scheduler may run an action once more after its cancel.
        guard state.withLock({ $0.contains(id) }) else { return }
        engine.send(now, replaysLatest: false)
    }

    @usableFromInline
    internal func disconnect(_ id: UInt64) {
        let removed = state.withLock { $0.remove(id) }
        guard let repeating = removed else { return } // cancelled before
        repeating?.cancel()
        engine.detachAll()
    }

    @inlinable
    internal func conduitRequested(_ conduit: ConduitBase<Output, Never>, _ demand: Subscribers.Demand) {
        engine.request(demand, for: conduit)
    }

    @inlinable
    internal func conduitCancelled(_ conduit: ConduitBase<Output, Never>) {
        engine.cancel(conduit)
    }

    /// `Timer`.
    public var description: String { "Timer" }

    /// The cancellable returned by ``UVSchedulerTimer/connect()``.
    @usableFromInline
    internal final class Connection: Cancellable, CustomStringConvertible, @unchecked Sendable {
        // @unchecked Sendable: the only mutable state is the weak
        // reference, read once per cancel; the timer is thread-safe.
        weak var timer: UVSchedulerTimer?
        let id: UInt64

        init(timer: UVSchedulerTimer, id: UInt64) {
            self.timer = timer
            self.id = id
        }

        @usableFromInline
        func cancel() {
            timer?.disconnect(id)
        }

        @usableFromInline var description: String { "Timer.Connection" }
    }
}

// Every piece of mutable state is behind the mutex or the engine's gate.
extension UVSchedulerTimer: @unchecked Sendable where Context: Sendable {}

extension UVSchedulerTimer: ConnectablePublisher {}

/// The running connections of a ``UVSchedulerTimer`` and their scheduled
/// actions, by connection number (numbers are never reused, so a connection
/// dropped without a cancel cannot be mistaken for a later one).
@usableFromInline
internal struct TimerConnections {
@usableFromInline
internal struct Running {
    @usableFromInline let id: UInt64
    /// `nil` while `connect()` is scheduling it.
    @usableFromInline var repeating: (any Cancellable)?
}

@usableFromInline internal var running: ContiguousArray<Running> = []
@usableFromInline internal var nextID: UInt64 = 0

@usableFromInline
internal init() {}

/// Registers a new connection; returns its number.
@usableFromInline
internal mutating func add() -> UInt64 {
    nextID += 1
    running.append(Running(id: nextID, repeating: nil))
    return nextID
}

/// Records the action of connection `id`; false when it was cancelled
/// meanwhile.
@usableFromInline
internal mutating func setRepeating(_ repeating: any Cancellable, for id: UInt64) -> Bool {
    guard let index = running.firstIndex(where: { $0.id == id }) else { return false }
    running[index].repeating = repeating
    return true
}

@usableFromInline
internal func contains(_ id: UInt64) -> Bool {
    running.contains { $0.id == id }
}

/// Forgets connection `id`; returns its action (`.some(nil)` while
/// still being scheduled), or `nil` when it was not running.
@usableFromInline
internal mutating func remove(_ id: UInt64) -> (any Cancellable)?? {
    guard let index = running.firstIndex(where: { $0.id == id }) else { return nil }
    return .some(running.remove(at: index).repeating)
}
}
