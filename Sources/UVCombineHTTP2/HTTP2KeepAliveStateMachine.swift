import UVCombineHTTPCore

/// PING keep-alive and idle close for one HTTP/2 connection, as pure
/// state: the owner reports activity and stream counts, arms one timer at
/// ``Decision/armTimer`` and calls ``timerFired(now:)`` when it fires.
///
/// - Keep-alive: when nothing arrived for `pingInterval`, send a PING
///   (``Decision/sendPing``); when its acknowledgement does not come within
///   `pingTimeout`, the connection is dead (``Decision/fail``, a
///   ``HTTP2Error/Kind/pingTimeout``).
/// - Idle close: when no stream was open for `idleTimeout`, close the
///   connection (``Decision/closeIdle``: send GOAWAY, then close).
///
/// Threading: a value type; confine it to the connection's thread.
///
/// ```swift
/// var keepAlive = HTTP2KeepAliveStateMachine(pingInterval: .seconds(30), pingTimeout: .seconds(10),
///                                            idleTimeout: .seconds(90), now: now)
/// let decision = keepAlive.timerFired(now: later)
/// if decision.sendPing { connection.sendPing(now: later) }
/// ```
public struct HTTP2KeepAliveStateMachine: Sendable {
    /// What to do after an event.
    ///
    /// ```swift
    /// let decision = keepAlive.timerFired(now: now)
    /// if decision.sendPing { connection.sendPing(now: now) }
    /// if decision.closeIdle { connection.shutdown() }
    /// if let error = decision.fail { fail(error) }
    /// if let deadline = decision.armTimer { timer.arm(deadline) }
    /// ```
    public struct Decision: Sendable, Hashable {
        /// Send a PING now (``HTTP2ClientConnection/sendPing(now:)``).
        public var sendPing = false
        /// The connection was idle for the idle timeout: shut it down.
        public var closeIdle = false
        /// The connection is dead: fail it with this error.
        public var fail: HTTP2Error?
        /// When to call ``HTTP2KeepAliveStateMachine/timerFired(now:)``
        /// next; nil: disarm the timer.
        public var armTimer: HTTPDeadline?

        /// A decision; the defaults do nothing and disarm the timer.
        public init(sendPing: Bool = false, closeIdle: Bool = false, fail: HTTP2Error? = nil, armTimer: HTTPDeadline? = nil) {
            self.sendPing = sendPing
            self.closeIdle = closeIdle
            self.fail = fail
            self.armTimer = armTimer
        }
    }

    private let pingInterval: UInt64?
    private let pingTimeout: UInt64
    private let idleTimeout: UInt64?
    /// When a frame last arrived.
    private var lastActivity: UInt64
    /// When the outstanding PING was sent.
    private var pingSentAt: UInt64?
    /// Streams open now.
    public private(set) var openStreams = 0
    /// When the last stream closed (idle since).
    private var idleSince: UInt64?
    /// Closed or failed: decides nothing more.
    private var isDone = false

    /// `pingInterval` nil turns keep-alive off, `idleTimeout` nil idle
    /// close. The connection starts idle at `now`.
    public init(pingInterval: Duration?, pingTimeout: Duration, idleTimeout: Duration?, now: HTTPDeadline) {
        self.pingInterval = pingInterval.map(Self.nanoseconds)
        self.pingTimeout = Self.nanoseconds(pingTimeout)
        self.idleTimeout = idleTimeout.map(Self.nanoseconds)
        lastActivity = now.uptimeNanoseconds
        idleSince = now.uptimeNanoseconds
    }

    /// Bytes arrived: the connection is alive.
    public mutating func activity(now: HTTPDeadline) -> Decision {
        lastActivity = now.uptimeNanoseconds
        return decision(sendPing: false)
    }

    /// The PING was acknowledged.
    public mutating func pingAcknowledged(now: HTTPDeadline) -> Decision {
        pingSentAt = nil
        lastActivity = now.uptimeNanoseconds
        return decision(sendPing: false)
    }

    /// A stream opened.
    public mutating func streamOpened(now: HTTPDeadline) -> Decision {
        openStreams += 1
        idleSince = nil
        return decision(sendPing: false)
    }

    /// A stream ended, failed or was cancelled.
    public mutating func streamClosed(now: HTTPDeadline) -> Decision {
        if openStreams == 0 { httpViolation("HTTP2KeepAliveStateMachine.streamClosed without an open stream") }
        openStreams -= 1
        if openStreams == 0 { idleSince = now.uptimeNanoseconds }
        return decision(sendPing: false)
    }

    /// The timer fired: PING, idle close, failure, or re-arm (libuv may
    /// fire up to a millisecond early; an early call only re-arms).
    public mutating func timerFired(now: HTTPDeadline) -> Decision {
        guard !isDone else { return Decision() }
        let time = now.uptimeNanoseconds
        if let sent = pingSentAt, time &- sent >= pingTimeout {
            isDone = true
            return Decision(fail: HTTP2Error(.pingTimeout, detail: "no PING acknowledgement in \(pingTimeout / 1_000_000) ms"))
        }
        if let idleTimeout, let since = idleSince, time &- since >= idleTimeout {
            isDone = true
            return Decision(closeIdle: true)
        }
        if let pingInterval, pingSentAt == nil, time &- lastActivity >= pingInterval {
            pingSentAt = time
            return decision(sendPing: true)
        }
        return decision(sendPing: false)
    }

    /// The connection closed: nothing more to decide.
    public mutating func closed() {
        isDone = true
    }

    /// The next deadline: the PING timeout while a PING is out, else the
    /// earlier of the next PING and the idle close.
    private func decision(sendPing: Bool) -> Decision {
        guard !isDone else { return Decision() }
        var deadline: UInt64?
        func consider(_ candidate: UInt64) { deadline = min(deadline ?? .max, candidate) }
        if let sent = pingSentAt {
            consider(Self.adding(sent, pingTimeout))
        } else if let pingInterval {
            consider(Self.adding(lastActivity, pingInterval))
        }
        if let idleTimeout, let since = idleSince { consider(Self.adding(since, idleTimeout)) }
        return Decision(sendPing: sendPing, armTimer: deadline.map { HTTPDeadline(uptimeNanoseconds: $0) })
    }

    private static func adding(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        HTTP2ClientConnection.nanoseconds(duration)
    }
}
