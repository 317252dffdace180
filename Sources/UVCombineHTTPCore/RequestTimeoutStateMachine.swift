/// A task's idle-read and total timeouts as a pure state machine that runs
/// on one timer.
///
/// The three timeouts of a data task and the errors they produce:
///
/// | timeout | measured from | error |
/// | --- | --- | --- |
/// | connect | ``ConnectionPoolStateMachine/ConnectionAction/create(_:_:connectDeadline:)`` | `.timedOut`, `timeoutKind == .connect`, detail `"connect timeout"` |
/// | idle read | the request being written, then each byte received | `.timedOut`, `timeoutKind == .idleRead`, detail `"idle read timeout"` |
/// | total | the task's start, across redirects and retries | `.timedOut`, `timeoutKind == .total`, detail `"total timeout"` |
///
/// The connect timeout belongs to a connection and lives in the pool;
/// this machine keeps the other two for one task. The owner keeps one
/// timer per task, armed at the deadline the machine asks for. Activity
/// (bytes received) only moves a stored instant, never the timer: when the
/// timer fires, the machine either fails the task or asks to re-arm at the
/// real deadline. Reading a fast response therefore costs no timer calls.
///
/// ## States
///
/// - `waiting`: the task started (total deadline running) and its request
///   is not written yet (queued, connecting).
/// - `exchanging`: the request is being written or the response read; the
///   idle read deadline is `lastActivity + idleRead`.
/// - `finished`: the task ended; the timer is cancelled and later fires
///   are ignored.
///
/// ```swift
/// var timeouts = RequestTimeoutStateMachine(
///     timeouts: RequestTimeouts(),
///     now: HTTPDeadline(uptimeNanoseconds: 0)
/// )
/// // arm the task's timer at timeouts.armedDeadline (the total deadline), then:
/// let action = timeouts.exchangeStarted(now: HTTPDeadline(uptimeNanoseconds: 1_000))
/// // action == .arm(1_000 ns + 60 s): the idle deadline is earlier
/// ```
///
/// Threading: a value type; the owner uses it from the loop thread.
public struct RequestTimeoutStateMachine: Sendable {
    /// What the owner does with the task's timer.
    ///
    /// ```swift
    /// switch timeouts.timerFired(now: now) {
    /// case .none: break
    /// case .arm(let deadline): timer.arm(at: deadline)
    /// case .cancel: timer.stop()
    /// case .fail(let error): fail(error) // .timedOut, kind .idleRead or .total
    /// }
    /// ```
    public enum Action: Equatable, Sendable {
        /// Nothing.
        case none
        /// (Re-)arm the timer for this deadline.
        case arm(HTTPDeadline)
        /// Stop the timer.
        case cancel
        /// Fail the task with this error (the timer is not re-armed).
        case fail(UVURLError)

        /// Equal cases with equal values; errors must agree on code and
        /// timeout kind.
        public static func == (lhs: Action, rhs: Action) -> Bool {
            switch (lhs, rhs) {
            case (.none, .none), (.cancel, .cancel): true
            case (.arm(let a), .arm(let b)): a == b
            case (.fail(let a), .fail(let b)): a == b && a.timeoutKind == b.timeoutKind
            default: false
            }
        }
    }

    internal enum Phase: Equatable {
        case waiting
        case exchanging(lastActivity: HTTPDeadline)
        case finished
    }

    /// The durations in force.
    public let timeouts: RequestTimeouts
    private var phase: Phase = .waiting
    private let totalDeadline: HTTPDeadline?
    /// ``RequestTimeouts/idleRead`` in nanoseconds.
    private let idleReadNanoseconds: UInt64?
    /// The deadline the owner's timer is armed for, if any.
    public private(set) var armedDeadline: HTTPDeadline?

    /// Starts the total timeout. Arm the task's timer at
    /// ``armedDeadline`` when it is not nil.
    public init(timeouts: RequestTimeouts, now: HTTPDeadline) {
        self.init(timeouts: timeouts, nanoseconds: RequestTimeouts.Nanoseconds(timeouts), now: now)
    }

    /// As ``init(timeouts:now:)``, with `timeouts` already converted
    /// (`nanoseconds` must be `RequestTimeouts.Nanoseconds(timeouts)`): the
    /// session converts its timeouts once, not per task.
    package init(timeouts: RequestTimeouts, nanoseconds: RequestTimeouts.Nanoseconds, now: HTTPDeadline) {
        self.timeouts = timeouts
        idleReadNanoseconds = nanoseconds.idleRead
        totalDeadline = nanoseconds.total.map { now.advanced(byNanoseconds: $0) }
        armedDeadline = totalDeadline
    }

    /// The request is about to be written on a connection (again, after a
    /// retry or a redirect): the idle read timeout starts.
    public mutating func exchangeStarted(now: HTTPDeadline) -> Action {
        guard phase != .finished else { return .none }
        phase = .exchanging(lastActivity: now)
        return rearmIfEarlier()
    }

    /// Bytes were received (or written): the idle read deadline moves.
    /// Never touches the timer.
    public mutating func activity(now: HTTPDeadline) {
        if case .exchanging = phase { phase = .exchanging(lastActivity: now) }
    }

    /// The exchange ended but the task goes on (a redirect or retry will
    /// start another): only the total timeout runs meanwhile.
    public mutating func exchangeEnded() {
        if case .exchanging = phase { phase = .waiting }
    }

    /// The task ended (delivered, failed, or cancelled).
    public mutating func finished() -> Action {
        guard phase != .finished else { return .none }
        phase = .finished
        let hadTimer = armedDeadline != nil
        armedDeadline = nil
        return hadTimer ? .cancel : .none
    }

    /// The task's timer fired.
    ///
    /// - Returns: `fail` with the total or idle read timeout when one has
    ///   passed (total first when both have), `arm` at the next deadline
    ///   when the timer fired early or activity moved the idle deadline,
    ///   `none` when the task has finished.
    public mutating func timerFired(now: HTTPDeadline) -> Action {
        guard phase != .finished else { return .none }
        armedDeadline = nil
        if let totalDeadline, now >= totalDeadline {
            phase = .finished
            return .fail(.timedOut(.total))
        }
        if let idle = idleDeadline, now >= idle {
            phase = .finished
            return .fail(.timedOut(.idleRead))
        }
        guard let next = nextDeadline else { return .none }
        armedDeadline = next
        return .arm(next)
    }

    /// The earliest deadline in force.
    public var nextDeadline: HTTPDeadline? {
        switch (totalDeadline, idleDeadline) {
        case (let total?, let idle?): min(total, idle)
        case (let total?, nil): total
        case (nil, let idle?): idle
        case (nil, nil): nil
        }
    }

    private var idleDeadline: HTTPDeadline? {
        guard case .exchanging(let lastActivity) = phase, let idleRead = idleReadNanoseconds else { return nil }
        return lastActivity.advanced(byNanoseconds: idleRead)
    }

    /// Arms for the next deadline when it is earlier than the armed one.
    private mutating func rearmIfEarlier() -> Action {
        guard let next = nextDeadline else { return .none }
        if let armed = armedDeadline, armed <= next { return .none }
        armedDeadline = next
        return .arm(next)
    }
}
