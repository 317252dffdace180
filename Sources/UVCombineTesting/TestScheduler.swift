import Dispatch
import UVCombineDispatch
import Synchronization
import UVCombineCore

/// A scheduler whose clock moves only when the test moves it.
///
/// Scheduled actions wait in a binary heap keyed by (deadline, sequence), so
/// actions due at the same instant run in the order they were scheduled.
/// Nothing runs by itself: ``advance(by:)``, ``advance(to:)`` and ``run()``
/// run every action that is due, each with ``now`` set to its deadline, and
/// then leave the clock at the target. Actions may schedule further actions
/// (they run in the same call when they fall due before the target) and may
/// cancel repeating ones.
///
/// - `schedule(options:)` queues the action for the current instant; it runs
///   on the next `advance`, never inside the `schedule` call.
/// - `schedule(after:)` with a date in the past queues it for the current
///   instant.
/// - A repeating action re-arms itself on a fixed schedule (deadline plus
///   interval, no drift) before it runs, so it can cancel itself. The
///   returned cancellable removes it at once; deinitialising the cancellable
///   also cancels it, as with Combine's own schedulers. The interval must be
///   positive.
/// - Tolerances and options are ignored.
///
/// Threading: every method may be called from any thread; state lives in a
/// mutex and actions run outside it, on the thread that advances the clock.
/// Tests usually drive it from one thread.
///
/// The time type is generic, so a test scheduler can stand in for a real one
/// behind ``/UVCombineCore/UVAnyScheduler``: `DispatchQueue.test` has DispatchQueue's time
/// type (see ``TestSchedulerOf``).
///
/// ```swift
/// let scheduler = DispatchQueue.test
/// var fired: [Int] = []
/// scheduler.schedule(after: scheduler.now.advanced(by: .seconds(2))) { fired.append(2) }
/// scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { fired.append(1) }
/// scheduler.advance(by: .seconds(1))  // fired == [1]
/// scheduler.advance(by: .seconds(1))  // fired == [1, 2]
/// ```
public final class TestScheduler<SchedulerTimeType: Strideable, SchedulerOptions>: Scheduler, @unchecked Sendable
    where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible
{
    // @unchecked Sendable: all mutable state is inside the mutex; actions are
    // taken out of it and run by the thread advancing the clock.

    /// One scheduled action. `id` is nonzero for repeating actions (their
    /// cancellation handle); `interval` is set for them too.
    @usableFromInline
    internal struct Entry: Comparable {
        @usableFromInline var deadline: SchedulerTimeType
        @usableFromInline var sequence: UInt64
        @usableFromInline let id: UInt64
        @usableFromInline let interval: SchedulerTimeType.Stride?
        @usableFromInline let action: () -> Void

        @inlinable
        init(deadline: SchedulerTimeType, sequence: UInt64, id: UInt64,
             interval: SchedulerTimeType.Stride?, action: @escaping () -> Void) {
            self.deadline = deadline
            self.sequence = sequence
            self.id = id
            self.interval = interval
            self.action = action
        }

        @inlinable
        static func < (lhs: Entry, rhs: Entry) -> Bool {
            lhs.deadline != rhs.deadline ? lhs.deadline < rhs.deadline : lhs.sequence < rhs.sequence
        }

        @inlinable
        static func == (lhs: Entry, rhs: Entry) -> Bool {
            lhs.sequence == rhs.sequence
        }
    }

    @usableFromInline
    internal struct State {
        @usableFromInline var now: SchedulerTimeType
        @usableFromInline var heap = BinaryHeap<Entry>()
        @usableFromInline var nextSequence: UInt64 = 0
        @usableFromInline var nextID: UInt64 = 0
        @usableFromInline var executed = 0

        @inlinable
        init(now: SchedulerTimeType) {
            self.now = now
        }

        @inlinable
        mutating func push(_ deadline: SchedulerTimeType, id: UInt64, interval: SchedulerTimeType.Stride?,
                           _ action: @escaping () -> Void) {
            nextSequence &+= 1
            heap.push(Entry(deadline: Swift.max(deadline, now), sequence: nextSequence, id: id,
                            interval: interval, action: action))
        }

        /// Takes the next action due at or before `limit` (any, when `nil`),
        /// moves the clock to its deadline and re-arms it if it repeats.
        /// Returns the entry, not the bare closure: a closure moved through a
        /// generic container (`Optional`, the lock's result) is re-abstracted
        /// with an allocated thunk; inside a struct field it is not.
        @inlinable
        mutating func takeDue(through limit: SchedulerTimeType?) -> Entry? {
            guard let first = heap.min else { return nil }
            if let limit, first.deadline > limit { return nil }
            guard let entry = heap.popMin() else { return nil }
            if entry.deadline > now { now = entry.deadline }
            if let interval = entry.interval {
                push(entry.deadline.advanced(by: interval), id: entry.id, interval: interval, entry.action)
            }
            executed += 1
            return entry
        }
    }

    @usableFromInline internal let state: Mutex<UncheckedBox<State>>

    /// Creates a test scheduler whose clock starts at `now`.
    ///
    /// ```swift
    /// let scheduler = TestScheduler<DispatchQueue.SchedulerTimeType, DispatchQueue.SchedulerOptions>(
    ///     now: .init(.init(uptimeNanoseconds: 1)))
    /// ```
    public init(now: SchedulerTimeType) {
        state = Mutex(UncheckedBox(State(now: now)))
    }

    /// The virtual current time.
    @inlinable
    public var now: SchedulerTimeType {
        state.withLock { UncheckedBox($0.value.now) }.value
    }

    /// Zero: virtual time is exact.
    @inlinable
    public var minimumTolerance: SchedulerTimeType.Stride { .zero }

    /// How many actions are waiting (repeating ones count once).
    public var pendingActionCount: Int {
        state.withLock { $0.value.heap.count }
    }

    /// How many actions have run so far (each run of a repeating one counts).
    public var executedActionCount: Int {
        state.withLock { $0.value.executed }
    }

    /// The deadline of the next waiting action, if any.
    public var nextDeadline: SchedulerTimeType? {
        state.withLock { UncheckedBox($0.value.heap.min?.deadline) }.value
    }

    /// Queues `action` for the current instant; it runs on the next advance.
    @inlinable
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        state.withLock { s in
            s.value.push(s.value.now, id: 0, interval: nil, action)
        }
    }

    /// Queues `action` for `date` (or the current instant if `date` is past).
    @inlinable
    public func schedule(after date: SchedulerTimeType,
                         tolerance: SchedulerTimeType.Stride,
                         options: SchedulerOptions?,
                         _ action: @escaping () -> Void) {
        state.withLock { s in
            s.value.push(date, id: 0, interval: nil, action)
        }
    }

    /// Queues `action` for `date` and then every `interval`, until the
    /// returned cancellable is cancelled or deinitialised.
    ///
    /// Traps unless `interval` is positive: a zero interval would make
    /// `advance` spin forever at one instant.
    @inlinable
    public func schedule(after date: SchedulerTimeType,
                         interval: SchedulerTimeType.Stride,
                         tolerance: SchedulerTimeType.Stride,
                         options: SchedulerOptions?,
                         _ action: @escaping () -> Void) -> any Cancellable {
        precondition(interval > .zero, "TestScheduler: a repeating action needs a positive interval")
        let id = state.withLock { s -> UInt64 in
            s.value.nextID &+= 1
            let id = s.value.nextID
            s.value.push(date, id: id, interval: interval, action)
            return id
        }
        return RepeatingToken(scheduler: self, id: id)
    }

    /// Removes the repeating action `id`, releasing its closure at once.
    @usableFromInline
    internal func cancelRepeating(_ id: UInt64) {
        let removed = state.withLock { s in
            UncheckedBox(s.value.heap.remove(where: { $0.id == id }))
        }
        _ = removed // the action is released here, outside the lock
    }

    /// Runs every action due within `stride` from now, then moves the clock
    /// forward by `stride`.
    ///
    /// ```swift
    /// scheduler.advance(by: .milliseconds(500))
    /// ```
    @inlinable
    public func advance(by stride: SchedulerTimeType.Stride = .zero) {
        advance(to: now.advanced(by: stride))
    }

    /// Runs every action due at or before `instant`, in (deadline, order
    /// scheduled) order, each with `now` at its deadline; then sets the clock
    /// to `instant` (it never moves backwards).
    ///
    /// ```swift
    /// scheduler.advance(to: start.advanced(by: .seconds(3)))
    /// ```
    @inlinable
    public func advance(to instant: SchedulerTimeType) {
        while let entry = state.withLock({ UncheckedBox($0.value.takeDue(through: instant)) }).value {
            entry.action()
        }
        state.withLock { s in
            if instant > s.value.now { s.value.now = instant }
        }
    }

    /// Runs actions in order, moving the clock to each deadline, until none
    /// is waiting.
    ///
    /// Never returns while a repeating action is alive (it re-arms itself
    /// every time it runs): cancel it first, or use ``run(limit:)`` or
    /// ``advance(to:)``.
    ///
    /// ```swift
    /// scheduler.run()
    /// ```
    public func run() {
        while let entry = state.withLock({ UncheckedBox($0.value.takeDue(through: nil)) }).value {
            entry.action()
        }
    }

    /// Runs at most `limit` actions in order, moving the clock to each
    /// deadline. Returns `true` when no action is left waiting: the bounded
    /// form of ``run()`` for code that may leave a repeating action alive.
    ///
    /// ```swift
    /// let drained = scheduler.run(limit: 100)
    /// ```
    @discardableResult
    public func run(limit: Int) -> Bool {
        var remaining = limit
        while remaining > 0,
              let entry = state.withLock({ UncheckedBox($0.value.takeDue(through: nil)) }).value {
            remaining -= 1
            entry.action()
        }
        return state.withLock { $0.value.heap.isEmpty }
    }

    /// Cancels a repeating action of a ``TestScheduler`` when cancelled or
    /// deinitialised.
    @usableFromInline
    internal final class RepeatingToken: Cancellable, @unchecked Sendable {
        // @unchecked Sendable: immutable; the scheduler is thread-safe.
        @usableFromInline weak var scheduler: TestScheduler?
        @usableFromInline let id: UInt64

        @inlinable
        init(scheduler: TestScheduler, id: UInt64) {
            self.scheduler = scheduler
            self.id = id
        }

        deinit {
            scheduler?.cancelRepeating(id)
        }

        @usableFromInline
        func cancel() {
            scheduler?.cancelRepeating(id)
        }
    }
}

/// The test scheduler with the time type and options of the scheduler
/// type `S`, so it can replace an `S` behind ``/UVCombineCore/UVAnySchedulerOf``.
///
/// ```swift
/// let scheduler: TestSchedulerOf<DispatchQueue> = DispatchQueue.test
/// let erased: UVAnySchedulerOf<DispatchQueue> = scheduler.eraseToUVAnyScheduler()
/// ```
public typealias TestSchedulerOf<S: Scheduler> = TestScheduler<S.SchedulerTimeType, S.SchedulerOptions>

extension DispatchQueue {
    /// A test scheduler with DispatchQueue's time type, starting at uptime
    /// 1 ns (uptime 0 means "now" to dispatch).
    ///
    /// ```swift
    /// let scheduler = DispatchQueue.test
    /// publisher.receive(on: scheduler)
    /// ```
    public static var test: TestSchedulerOf<DispatchQueue> {
        TestScheduler(now: SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)))
    }
}
