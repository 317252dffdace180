/// A protocol that provides to a scheduler with an expression for relative
/// time: the `Stride` of every scheduler's time type conforms.
///
/// Integer and floating-point literals mean seconds.
///
/// ```swift
/// let delay: UVLoop.SchedulerTimeType.Stride = .milliseconds(250)
/// ```
public protocol SchedulerTimeIntervalConvertible {
    /// An interval of `s` whole seconds.
    static func seconds(_ s: Int) -> Self
    /// An interval of `s` seconds.
    static func seconds(_ s: Double) -> Self
    /// An interval of `ms` milliseconds.
    static func milliseconds(_ ms: Int) -> Self
    /// An interval of `us` microseconds.
    static func microseconds(_ us: Int) -> Self
    /// An interval of `ns` nanoseconds.
    static func nanoseconds(_ ns: Int) -> Self
}

/// A protocol that defines when and how to execute a closure.
///
/// Operators such as `receive(on:)`, `delay` and `debounce` take a
/// scheduler. Each conforming type documents on which thread actions run
/// (a `UVLoop` runs them on its loop thread; `ImmediateScheduler` on the
/// calling thread). Every `schedule` method may be called from any thread
/// unless the conforming type says otherwise. Actions never run before
/// their deadline, and actions due at the same instant run in the order
/// they were scheduled.
///
/// ```swift
/// scheduler.schedule { print("soon") }
/// scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { print("later") }
/// ```
public protocol Scheduler<SchedulerTimeType> {
    /// Describes an instant in time for this scheduler.
    associatedtype SchedulerTimeType: Strideable
        where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible

    /// A type that defines options accepted by the scheduler.
    associatedtype SchedulerOptions

    /// This scheduler's definition of the current moment in time.
    var now: SchedulerTimeType { get }

    /// The minimum tolerance allowed by the scheduler.
    var minimumTolerance: SchedulerTimeType.Stride { get }

    /// Performs the action at the next possible opportunity.
    func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void)

    /// Performs the action at some time after the specified date.
    func schedule(after date: SchedulerTimeType,
                  tolerance: SchedulerTimeType.Stride,
                  options: SchedulerOptions?,
                  _ action: @escaping () -> Void)

    /// Performs the action at some time after the specified date, at the
    /// specified frequency, optionally taking into account tolerance if
    /// possible. The returned cancellable stops the repetition.
    func schedule(after date: SchedulerTimeType,
                  interval: SchedulerTimeType.Stride,
                  tolerance: SchedulerTimeType.Stride,
                  options: SchedulerOptions?,
                  _ action: @escaping () -> Void) -> any Cancellable
}

extension Scheduler {
    /// Performs the action at some time after the specified date, using the
    /// scheduler's minimum tolerance.
    ///
    /// ```swift
    /// scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(10))) { print("tick") }
    /// ```
    @inlinable
    public func schedule(after date: SchedulerTimeType, _ action: @escaping () -> Void) {
        schedule(after: date, tolerance: minimumTolerance, action)
    }

    /// Performs the action at the next possible opportunity, without options.
    ///
    /// ```swift
    /// scheduler.schedule { print("next turn") }
    /// ```
    @inlinable
    public func schedule(_ action: @escaping () -> Void) {
        schedule(options: nil, action)
    }

    /// Performs the action at some time after the specified date, without
    /// options.
    ///
    /// ```swift
    /// scheduler.schedule(after: deadline, tolerance: .milliseconds(1)) { print("late enough") }
    /// ```
    @inlinable
    public func schedule(after date: SchedulerTimeType,
                         tolerance: SchedulerTimeType.Stride,
                         _ action: @escaping () -> Void) {
        schedule(after: date, tolerance: tolerance, options: nil, action)
    }

    /// Performs the action repeatedly from `date` at `interval`, with the
    /// given tolerance and no options.
    ///
    /// ```swift
    /// let repeating = scheduler.schedule(after: start, interval: .seconds(1), tolerance: .zero) { print("tick") }
    /// ```
    @inlinable
    public func schedule(after date: SchedulerTimeType,
                         interval: SchedulerTimeType.Stride,
                         tolerance: SchedulerTimeType.Stride,
                         _ action: @escaping () -> Void) -> any Cancellable {
        schedule(after: date, interval: interval, tolerance: tolerance, options: nil, action)
    }

    /// Performs the action repeatedly from `date` at `interval`, using the
    /// scheduler's minimum tolerance.
    ///
    /// ```swift
    /// let repeating = scheduler.schedule(after: start, interval: .seconds(1)) { print("tick") }
    /// ```
    @inlinable
    public func schedule(after date: SchedulerTimeType,
                         interval: SchedulerTimeType.Stride,
                         _ action: @escaping () -> Void) -> any Cancellable {
        schedule(after: date, interval: interval, tolerance: minimumTolerance, action)
    }
}
