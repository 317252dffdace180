import Dispatch
import Synchronization
import UVCombineCore
import UVCombineDispatch
import UVCombineTesting

final class CancelCounter: Sendable {
    let value = Mutex(0)
}

/// One call an operator made on a ``RecordingScheduler``. Times are in
/// nanoseconds since the scheduler's start; `options` says whether options
/// were passed (non-nil).
enum SchedulerCall: Equatable, CustomStringConvertible {
    case now
    case minimumTolerance
    case schedule(options: Bool)
    case scheduleAfter(Int, tolerance: Int, options: Bool)
    case scheduleAfterInterval(Int, interval: Int, tolerance: Int, options: Bool)

    var description: String {
        switch self {
        case .now: return "now"
        case .minimumTolerance: return "minimumTolerance"
        case .schedule(let o): return "schedule(options: \(o))"
        case .scheduleAfter(let t, let tol, let o): return "scheduleAfter(\(t), tolerance: \(tol), options: \(o))"
        case .scheduleAfterInterval(let t, let i, let tol, let o):
            return "scheduleAfter(\(t), interval: \(i), tolerance: \(tol), options: \(o))"
        }
    }
}

/// A scheduler that records every call made on it (what Combine's own
/// tests do with a virtual-time scheduler) and runs the actions on a
/// ``TestScheduler`` with DispatchQueue's time type. Its minimum
/// tolerance is 7 ns, so tests can tell it from an explicit tolerance.
final class RecordingScheduler: Scheduler, @unchecked Sendable {
    typealias SchedulerTimeType = DispatchQueue.SchedulerTimeType
    typealias SchedulerOptions = DispatchQueue.SchedulerOptions

    let base: TestSchedulerOf<DispatchQueue>
    private let log = Mutex<[SchedulerCall]>([])
    private let cancels = CancelCounter()
    /// Uptime of the scheduler's start (time 0 in the records).
    let origin: UInt64 = 1

    /// Whether cancelling a repeating action stops it. `false` makes a
    /// "bad scheduler" (as in Combine's own tests): the cancellable is
    /// counted but the action keeps repeating.
    let cancelStopsRepeats: Bool

    init(cancelStopsRepeats: Bool = true) {
        base = TestScheduler(now: SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)))
        self.cancelStopsRepeats = cancelStopsRepeats
    }

    /// Every call so far.
    var calls: [SchedulerCall] { log.withLock { $0 } }
    /// How many cancellables returned by repeating schedules were cancelled.
    var cancelCount: Int { cancels.value.withLock { $0 } }

    func clear() { log.withLock { $0.removeAll() } }

    private func record(_ call: SchedulerCall) { log.withLock { $0.append(call) } }
    private func ns(_ t: SchedulerTimeType) -> Int { Int(t.dispatchTime.uptimeNanoseconds - origin) }

    /// A time `ns` nanoseconds after the start.
    func time(_ ns: Int) -> SchedulerTimeType {
        SchedulerTimeType(DispatchTime(uptimeNanoseconds: origin + UInt64(ns)))
    }

    var now: SchedulerTimeType {
        record(.now)
        return base.now
    }

    var minimumTolerance: SchedulerTimeType.Stride {
        record(.minimumTolerance)
        return .nanoseconds(7)
    }

    func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        record(.schedule(options: options != nil))
        base.schedule(options: options, action)
    }

    func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride,
                  options: SchedulerOptions?, _ action: @escaping () -> Void) {
        record(.scheduleAfter(ns(date), tolerance: tolerance.magnitude, options: options != nil))
        base.schedule(after: date, tolerance: tolerance, options: options, action)
    }

    func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
                  tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
                  _ action: @escaping () -> Void) -> any Cancellable {
        record(.scheduleAfterInterval(ns(date), interval: interval.magnitude, tolerance: tolerance.magnitude,
                                      options: options != nil))
        let inner = base.schedule(after: date, interval: interval, tolerance: tolerance, options: options, action)
        let cancels = self.cancels
        let stops = cancelStopsRepeats
        return AnyCancellable {
            cancels.value.withLock { $0 += 1 }
            if stops { inner.cancel() }
        }
    }

    /// Moves the clock to `ns` nanoseconds after the start, running what
    /// falls due (not recorded).
    func advance(to ns: Int) { base.advance(to: time(ns)) }

    /// Runs everything due now.
    func run() { base.advance() }
}
