/// A type-erasing scheduler.
///
/// Wraps any scheduler whose time type is `SchedulerTimeType` and whose
/// options are `SchedulerOptions`, so that code can take "a scheduler with
/// this clock" without naming the concrete type. The usual use is
/// dependency injection: production code is handed the real scheduler
/// (a `UVLoop`, a `DispatchQueue`), tests hand in a `TestScheduler` with
/// the same time type and drive virtual time.
///
/// The time type stays a generic parameter (as in pointfreeco's
/// combine-schedulers): instants of different clocks cannot be compared,
/// so schedulers are interchangeable only when their time types agree.
/// ``UVAnySchedulerOf`` spells the erased type of a given scheduler.
///
/// Threading: as the wrapped scheduler; the wrapper adds no state.
///
/// ```swift
/// struct Search {
///     let scheduler: UVAnySchedulerOf<DispatchQueue>
///     func results(_ query: some Publisher<String, Never>) -> some Publisher<String, Never> {
///         query.debounce(for: .milliseconds(300), scheduler: scheduler)
///     }
/// }
/// let live = Search(scheduler: DispatchQueue.main.eraseToUVAnyScheduler())
/// ```
public struct UVAnyScheduler<SchedulerTimeType: Strideable, SchedulerOptions>: Scheduler
    where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible
{
    @usableFromInline internal let box: AnySchedulerBox<SchedulerTimeType, SchedulerOptions>

    /// Wraps `scheduler`. Wrapping a `UVAnyScheduler` again reuses its box.
    ///
    /// ```swift
    /// let erased = UVAnyScheduler(DispatchQueue.global())
    /// ```
    @inlinable
    public init<S: Scheduler>(_ scheduler: S)
        where S.SchedulerTimeType == SchedulerTimeType, S.SchedulerOptions == SchedulerOptions
    {
        if let already = scheduler as? UVAnyScheduler<SchedulerTimeType, SchedulerOptions> {
            self = already
            return
        }
        box = SchedulerBox<SchedulerTimeType, SchedulerOptions, S>(scheduler)
    }

    /// Creates a scheduler from closures, for stubs and instrumentation.
    ///
    /// ```swift
    /// let logging = UVAnyScheduler<DispatchQueue.SchedulerTimeType, DispatchQueue.SchedulerOptions>(
    ///     minimumTolerance: { .zero },
    ///     now: { DispatchQueue.main.now },
    ///     scheduleImmediately: { options, action in print("now"); DispatchQueue.main.schedule(options: options, action) },
    ///     delayed: { date, tolerance, options, action in DispatchQueue.main.schedule(after: date, tolerance: tolerance, options: options, action) },
    ///     interval: { date, interval, tolerance, options, action in
    ///         DispatchQueue.main.schedule(after: date, interval: interval, tolerance: tolerance, options: options, action)
    ///     })
    /// ```
    public init(
        minimumTolerance: @escaping () -> SchedulerTimeType.Stride,
        now: @escaping () -> SchedulerTimeType,
        scheduleImmediately: @escaping (SchedulerOptions?, @escaping () -> Void) -> Void,
        delayed: @escaping (SchedulerTimeType, SchedulerTimeType.Stride, SchedulerOptions?,
                            @escaping () -> Void) -> Void,
        interval: @escaping (SchedulerTimeType, SchedulerTimeType.Stride, SchedulerTimeType.Stride,
                             SchedulerOptions?, @escaping () -> Void) -> any Cancellable
    ) {
        box = ClosureSchedulerBox(minimumTolerance: minimumTolerance, now: now,
                                  scheduleImmediately: scheduleImmediately,
                                  delayed: delayed, interval: interval)
    }

    /// The wrapped scheduler's current time.
    @inlinable
    public var now: SchedulerTimeType { box.now(box) }

    /// The wrapped scheduler's minimum tolerance.
    @inlinable
    public var minimumTolerance: SchedulerTimeType.Stride { box.minimumTolerance(box) }

    /// Forwards to the wrapped scheduler.
    @inlinable
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        box.scheduleNow(box, options, action)
    }

    /// Forwards to the wrapped scheduler.
    @inlinable
    public func schedule(after date: SchedulerTimeType,
                         tolerance: SchedulerTimeType.Stride,
                         options: SchedulerOptions?,
                         _ action: @escaping () -> Void) {
        box.scheduleAfter(box, date, tolerance, options, action)
    }

    /// Forwards to the wrapped scheduler.
    @inlinable
    public func schedule(after date: SchedulerTimeType,
                         interval: SchedulerTimeType.Stride,
                         tolerance: SchedulerTimeType.Stride,
                         options: SchedulerOptions?,
                         _ action: @escaping () -> Void) -> any Cancellable {
        box.scheduleRepeating(box, date, interval, tolerance, options, action)
    }
}

/// The type-erased form of the scheduler type `S`.
///
/// ```swift
/// let scheduler: UVAnySchedulerOf<DispatchQueue> = DispatchQueue.main.eraseToUVAnyScheduler()
/// ```
public typealias UVAnySchedulerOf<S: Scheduler> = UVAnyScheduler<S.SchedulerTimeType, S.SchedulerOptions>

extension Scheduler {
    /// Wraps this scheduler with a type eraser.
    ///
    /// ```swift
    /// let erased: UVAnySchedulerOf<DispatchQueue> = DispatchQueue.global().eraseToUVAnyScheduler()
    /// ```
    @inlinable
    public func eraseToUVAnyScheduler() -> UVAnyScheduler<SchedulerTimeType, SchedulerOptions> {
        UVAnyScheduler(self)
    }
}

/// The box behind ``UVAnyScheduler``: entry points are stored non-capturing
/// functions taking the box, formed where the concrete scheduler type is
/// known (the pattern `AnySubscriberBox` uses), so one allocation wraps a
/// scheduler and every call runs specialised code.
@usableFromInline
internal class AnySchedulerBox<Time: Strideable, Options>
    where Time.Stride: SchedulerTimeIntervalConvertible
{
    @usableFromInline let now: (AnySchedulerBox) -> Time
    @usableFromInline let minimumTolerance: (AnySchedulerBox) -> Time.Stride
    @usableFromInline let scheduleNow: (AnySchedulerBox, Options?, @escaping () -> Void) -> Void
    @usableFromInline let scheduleAfter: (AnySchedulerBox, Time, Time.Stride, Options?, @escaping () -> Void) -> Void
    @usableFromInline let scheduleRepeating:
        (AnySchedulerBox, Time, Time.Stride, Time.Stride, Options?, @escaping () -> Void) -> any Cancellable

    @inlinable
    init(now: @escaping (AnySchedulerBox) -> Time,
         minimumTolerance: @escaping (AnySchedulerBox) -> Time.Stride,
         scheduleNow: @escaping (AnySchedulerBox, Options?, @escaping () -> Void) -> Void,
         scheduleAfter: @escaping (AnySchedulerBox, Time, Time.Stride, Options?, @escaping () -> Void) -> Void,
         scheduleRepeating: @escaping (AnySchedulerBox, Time, Time.Stride, Time.Stride, Options?,
                                       @escaping () -> Void) -> any Cancellable) {
        self.now = now
        self.minimumTolerance = minimumTolerance
        self.scheduleNow = scheduleNow
        self.scheduleAfter = scheduleAfter
        self.scheduleRepeating = scheduleRepeating
    }
}

/// `Time` and `Options` are `S`'s, parameters of their own so that the
/// superclass is named by generic parameters only: the runtime then builds
/// the metadata without looking up `S: Scheduler`, a scan of every
/// conformance record of the image (see `SubjectConduit`).
@usableFromInline
internal final class SchedulerBox<Time, Options, S: Scheduler>: AnySchedulerBox<Time, Options>
    where S.SchedulerTimeType == Time, S.SchedulerOptions == Options
{
    @usableFromInline let base: S

    @inlinable
    init(_ base: S) {
        self.base = base
        super.init(
            now: { unsafeDowncast($0, to: SchedulerBox<Time, Options, S>.self).base.now },
            minimumTolerance: { unsafeDowncast($0, to: SchedulerBox<Time, Options, S>.self).base.minimumTolerance },
            scheduleNow: { box, options, action in
                unsafeDowncast(box, to: SchedulerBox<Time, Options, S>.self).base.schedule(options: options, action)
            },
            scheduleAfter: { box, date, tolerance, options, action in
                unsafeDowncast(box, to: SchedulerBox<Time, Options, S>.self).base
                    .schedule(after: date, tolerance: tolerance, options: options, action)
            },
            scheduleRepeating: { box, date, interval, tolerance, options, action in
                unsafeDowncast(box, to: SchedulerBox<Time, Options, S>.self).base
                    .schedule(after: date, interval: interval, tolerance: tolerance, options: options, action)
            })
    }
}

@usableFromInline
internal final class ClosureSchedulerBox<Time: Strideable, Options>: AnySchedulerBox<Time, Options>
    where Time.Stride: SchedulerTimeIntervalConvertible
{
    let tolerance: () -> Time.Stride
    let current: () -> Time
    let immediately: (Options?, @escaping () -> Void) -> Void
    let delayed: (Time, Time.Stride, Options?, @escaping () -> Void) -> Void
    let repeating: (Time, Time.Stride, Time.Stride, Options?, @escaping () -> Void) -> any Cancellable

    init(minimumTolerance: @escaping () -> Time.Stride,
         now: @escaping () -> Time,
         scheduleImmediately: @escaping (Options?, @escaping () -> Void) -> Void,
         delayed: @escaping (Time, Time.Stride, Options?, @escaping () -> Void) -> Void,
         interval: @escaping (Time, Time.Stride, Time.Stride, Options?, @escaping () -> Void) -> any Cancellable) {
        tolerance = minimumTolerance
        current = now
        immediately = scheduleImmediately
        self.delayed = delayed
        repeating = interval
        super.init(
            now: { unsafeDowncast($0, to: ClosureSchedulerBox.self).current() },
            minimumTolerance: { unsafeDowncast($0, to: ClosureSchedulerBox.self).tolerance() },
            scheduleNow: { box, options, action in
                unsafeDowncast(box, to: ClosureSchedulerBox.self).immediately(options, action)
            },
            scheduleAfter: { box, date, tolerance, options, action in
                unsafeDowncast(box, to: ClosureSchedulerBox.self).delayed(date, tolerance, options, action)
            },
            scheduleRepeating: { box, date, interval, tolerance, options, action in
                unsafeDowncast(box, to: ClosureSchedulerBox.self).repeating(date, interval, tolerance, options, action)
            })
    }
}
