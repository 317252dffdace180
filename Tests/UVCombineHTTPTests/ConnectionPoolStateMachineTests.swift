import HTTPTypes
import Testing
import UVCombineHTTP
import UVCombineHTTPCore

typealias Pool = ConnectionPoolStateMachine

private let keyA = ConnectionKey(scheme: .http, host: "a.example", port: 80)
private let keyB = ConnectionKey(scheme: .http, host: "b.example", port: 80)

/// Seconds as a deadline.
private func t(_ seconds: Double) -> HTTPDeadline {
    HTTPDeadline(uptimeNanoseconds: UInt64(seconds * 1_000_000_000))
}

private func r(_ n: Int) -> Pool.RequestID { Pool.RequestID(n) }
private func c(_ n: Int) -> Pool.ConnectionID { Pool.ConnectionID(n) }

private let lost = UVURLError(.networkConnectionLost, detail: "reset", underlyingErrorName: "UV_ECONNRESET")
private let refused = UVURLError(.cannotConnectToHost, underlyingErrorName: "UV_ECONNREFUSED")

// Shorthands for expected actions; the default configuration has a 10 s
// connect timeout and a 60 s idle timeout.
private func create(_ n: Int, _ key: ConnectionKey = keyA, at now: Double = 0) -> Pool.Action {
    Pool.Action(connection: .create(c(n), key, connectDeadline: t(now + 10)))
}
private func execute(_ request: Int, on connection: Int) -> Pool.Action {
    Pool.Action(request: .execute(r(request), on: c(connection)))
}
private func reuse(_ request: Int, on connection: Int) -> Pool.Action {
    Pool.Action(connection: .cancelIdleTimeout(c(connection)), request: .execute(r(request), on: c(connection)))
}
private func idle(_ connection: Int, at now: Double) -> Pool.Action {
    Pool.Action(connection: .scheduleIdleTimeout(c(connection), t(now + 60)))
}
private func close(_ connection: Int) -> Pool.Action {
    Pool.Action(connection: .close(c(connection)))
}
private func closeAndCreate(_ old: Int, _ new: Int, _ key: ConnectionKey = keyA, at now: Double = 0) -> Pool.Action {
    Pool.Action(connection: .closeAndCreate(close: c(old), create: c(new), key, connectDeadline: t(now + 10)))
}
private func fail(_ request: Int, _ error: UVURLError) -> Pool.Action {
    Pool.Action(request: .fail(r(request), error))
}

/// An event fed to the pool at a time, and the action it must return.
enum PoolEvent: CustomStringConvertible {
    case execute(Int, ConnectionKey = keyA, HTTPRequest.Method = .get, closes: Bool = false)
    case established(Int)
    case connectFailed(Int, UVURLError)
    case connectTimeout(Int)
    case writeStarted(Int)
    case responseBytes(Int)
    case finished(Int, keepAlive: Bool = true)
    case requestFailed(Int, UVURLError)
    case cancel(Int)
    case closedByPeer(Int)
    case idleTimeout(Int)

    var description: String {
        switch self {
        case .execute(let n, let key, let method, let closes): "execute(r\(n), \(key.host), \(method)\(closes ? ", close" : ""))"
        case .established(let n): "established(#\(n))"
        case .connectFailed(let n, let e): "connectFailed(#\(n), \(e.code))"
        case .connectTimeout(let n): "connectTimeout(#\(n))"
        case .writeStarted(let n): "writeStarted(r\(n))"
        case .responseBytes(let n): "responseBytes(r\(n))"
        case .finished(let n, let keepAlive): "finished(r\(n), keepAlive: \(keepAlive))"
        case .requestFailed(let n, let e): "requestFailed(r\(n), \(e.code))"
        case .cancel(let n): "cancel(r\(n))"
        case .closedByPeer(let n): "closedByPeer(#\(n))"
        case .idleTimeout(let n): "idleTimeout(#\(n))"
        }
    }
}

/// Feeds `steps` (time, event, expected action) in order and checks each.
private func run(
    _ steps: [(Double, PoolEvent, Pool.Action)],
    configuration: Pool.Configuration = .init(),
    sourceLocation: SourceLocation = #_sourceLocation
) -> Pool {
    var pool = Pool(configuration: configuration)
    for (index, (seconds, event, expected)) in steps.enumerated() {
        let now = t(seconds)
        let action: Pool.Action
        switch event {
        case .execute(let n, let key, let method, let closes):
            action = pool.executeRequest(r(n), key: key, method: method, closesConnection: closes, now: now)
        case .established(let n): action = pool.connectionEstablished(c(n), now: now)
        case .connectFailed(let n, let error): action = pool.connectionFailed(c(n), error: error, now: now)
        case .connectTimeout(let n): action = pool.connectTimeoutFired(c(n), now: now)
        case .writeStarted(let n): pool.requestWriteStarted(r(n)); action = .none
        case .responseBytes(let n): pool.responseBytesReceived(r(n)); action = .none
        case .finished(let n, let keepAlive): action = pool.requestFinished(r(n), keepAlive: keepAlive, now: now)
        case .requestFailed(let n, let error): action = pool.requestFailed(r(n), error: error, now: now)
        case .cancel(let n): action = pool.cancelRequest(r(n), now: now)
        case .closedByPeer(let n): action = pool.connectionClosed(c(n), now: now)
        case .idleTimeout(let n): action = pool.idleTimeoutFired(c(n), now: now)
        }
        #expect(action == expected, "step \(index): \(event)", sourceLocation: sourceLocation)
    }
    return pool
}

/// A full exchange on a leased request: write, response bytes, end.
private func exchange(_ request: Int, at now: Double, keepAlive: Bool = true, then expected: Pool.Action) -> [(Double, PoolEvent, Pool.Action)] {
    [
        (now, .writeStarted(request), .none),
        (now, .responseBytes(request), .none),
        (now, .finished(request, keepAlive: keepAlive), expected),
    ]
}

@Suite("ConnectionPoolStateMachine")
struct ConnectionPoolStateMachineTests {
    @Test func firstRequestConnectsThenKeepAliveReuses() {
        let pool = run([
            (0, .execute(1), create(1)),
            (0.1, .established(1), execute(1, on: 1)),
        ] + exchange(1, at: 0.2, then: idle(1, at: 0.2)) + [
            (1, .execute(2), reuse(2, on: 1)),
        ] + exchange(2, at: 1.5, then: idle(1, at: 1.5)))
        #expect(pool.connectionCount(for: keyA) == 1)
        #expect(pool.idleConnectionCount(for: keyA) == 1)
    }

    @Test func perHostLimitQueuesInFIFOOrder() {
        var configuration = Pool.Configuration()
        configuration.maximumConnectionsPerHost = 2
        let pool = run([
            (0, .execute(1), create(1)),
            (0, .execute(2), create(2)),
            (0, .execute(3), .none),
            (0, .execute(4), .none),
            (0.1, .established(2), execute(1, on: 2)),
            (0.1, .established(1), execute(2, on: 1)),
        ] + exchange(2, at: 1, then: execute(3, on: 1))
            + exchange(1, at: 1, then: execute(4, on: 2))
            + exchange(3, at: 2, then: idle(1, at: 2))
            + exchange(4, at: 2, then: idle(2, at: 2)),
            configuration: configuration)
        #expect(pool.connectionCount(for: keyA) == 2)
        #expect(pool.queuedRequestCount(for: keyA) == 0)
    }

    @Test func keysHaveTheirOwnLimits() {
        var configuration = Pool.Configuration()
        configuration.maximumConnectionsPerHost = 1
        let pool = run([
            (0, .execute(1, keyA), create(1, keyA)),
            (0, .execute(2, keyA), .none),
            (0, .execute(3, keyB), create(2, keyB)),
            (0, .established(2), execute(3, on: 2)),
            (0, .established(1), execute(1, on: 1)),
        ], configuration: configuration)
        #expect(pool.queuedRequestCount(for: keyA) == 1)
        #expect(pool.queuedRequestCount(for: keyB) == 0)
    }

    @Test func mostRecentlyIdleConnectionIsReusedFirst() {
        _ = run([
            (0, .execute(1), create(1)),
            (0, .execute(2), create(2)),
            (0, .established(1), execute(1, on: 1)),
            (0, .established(2), execute(2, on: 2)),
        ] + exchange(2, at: 1, then: idle(2, at: 1))
            + exchange(1, at: 2, then: idle(1, at: 2)) + [
            (3, .execute(3), reuse(3, on: 1)),
            (3, .execute(4), reuse(4, on: 2)),
        ])
    }

    @Test func connectionCloseFromTheResponseClosesTheConnection() {
        var configuration = Pool.Configuration()
        configuration.maximumConnectionsPerHost = 1
        _ = run([
            (0, .execute(1), create(1)),
            (0, .execute(2), .none),
            (0, .established(1), execute(1, on: 1)),
        ] + exchange(1, at: 1, keepAlive: false, then: closeAndCreate(1, 2, at: 1)) + [
            (1.5, .established(2), execute(2, on: 2)),
        ] + exchange(2, at: 2, keepAlive: false, then: close(2)), configuration: configuration)
    }

    @Test func connectionCloseFromTheRequestClosesTheConnection() {
        _ = run([
            (0, .execute(1, closes: true), create(1)),
            (0, .established(1), execute(1, on: 1)),
        ] + exchange(1, at: 1, keepAlive: true, then: close(1)) + [
            (2, .execute(2), create(2, at: 2)),
        ])
    }

    @Test func idleConnectionClosedByTheServerIsRemoved() {
        let pool = run([
            (0, .execute(1), create(1)),
            (0, .established(1), execute(1, on: 1)),
        ] + exchange(1, at: 1, then: idle(1, at: 1)) + [
            (5, .closedByPeer(1), close(1)),
            (6, .execute(2), create(2, at: 6)),
        ])
        #expect(pool.idleConnectionCount(for: keyA) == 0)
        #expect(pool.connectionCount(for: keyA) == 1)
    }

    @Test func idleTimeoutClosesAtTheDeadlineAndSurvivesEarlyAndStaleTimers() {
        let pool = run([
            (0, .execute(1), create(1)),
            (0, .established(1), execute(1, on: 1)),
        ] + exchange(1, at: 1, then: idle(1, at: 1)) + [
            // libuv may fire up to 1 ms early: re-arm for the same deadline.
            (60.999, .idleTimeout(1), idle(1, at: 1)),
            (61, .idleTimeout(1), close(1)),
            // The timer of a connection that is gone is stale.
            (61, .idleTimeout(1), .none),
            (62, .execute(2), create(2, at: 62)),
            (62, .established(2), execute(2, on: 2)),
            // A timer from an earlier idle period fires while it is in use.
            (63, .idleTimeout(2), .none),
        ])
        #expect(pool.connectionCount(for: keyA) == 1)
    }

    // MARK: Retry on stale keep-alive connections

    @Test func idempotentRequestOnAReusedConnectionIsRetriedOnceOnAFreshOne() {
        _ = run([
            (0, .execute(1), create(1)),
            (0, .established(1), execute(1, on: 1)),
        ] + exchange(1, at: 1, then: idle(1, at: 1)) + [
            (30, .execute(2), reuse(2, on: 1)),
            (30, .writeStarted(2), .none),
            // The server had closed it: the write or read fails, no byte came back.
            (30, .requestFailed(2, lost), Pool.Action(
                connection: .closeAndCreate(close: c(1), create: c(2), keyA, connectDeadline: t(40)),
                request: .retry(r(2), on: .newConnection(c(2)))
            )),
            (30.1, .established(2), execute(2, on: 2)),
        ] + exchange(2, at: 31, then: idle(2, at: 31)))
    }

    @Test func retriedRequestIsNotRetriedTwice() {
        _ = run([
            (0, .execute(1), create(1)),
            (0, .established(1), execute(1, on: 1)),
        ] + exchange(1, at: 1, then: idle(1, at: 1)) + [
            (2, .execute(2, keyA, .delete), reuse(2, on: 1)),
            (2, .requestFailed(2, lost), Pool.Action(
                connection: .closeAndCreate(close: c(1), create: c(2), keyA, connectDeadline: t(12)),
                request: .retry(r(2), on: .newConnection(c(2)))
            )),
            (2, .established(2), execute(2, on: 2)),
            (2, .writeStarted(2), .none),
            (2, .requestFailed(2, lost), Pool.Action(connection: .close(c(2)), request: .fail(r(2), lost))),
        ])
    }

    struct NoRetry: CustomTestStringConvertible, Sendable {
        var name: String
        var method: HTTPRequest.Method = .get
        var reused = true
        var receivedBytes = false
        var error = lost
        var testDescription: String { name }
    }

    @Test(arguments: [
        NoRetry(name: "POST is not idempotent", method: .post),
        NoRetry(name: "PATCH is not idempotent", method: .patch),
        NoRetry(name: "first request on a fresh connection", reused: false),
        NoRetry(name: "after a response byte", receivedBytes: true),
        NoRetry(name: "idle read timeout", error: .timedOut(.idleRead)),
        NoRetry(name: "malformed response", error: UVURLError(.badServerResponse, detail: "bare LF in header section")),
    ])
    func failuresThatAreNotRetried(_ n: NoRetry) {
        var steps: [(Double, PoolEvent, Pool.Action)] = [(0, .execute(1), create(1)), (0, .established(1), execute(1, on: 1))]
        var request = 1
        if n.reused {
            steps += exchange(1, at: 1, then: idle(1, at: 1))
            steps.append((2, .execute(2, keyA, n.method), reuse(2, on: 1)))
            request = 2
        }
        steps.append((2, .writeStarted(request), .none))
        if n.receivedBytes { steps.append((2, .responseBytes(request), .none)) }
        steps.append((2, .requestFailed(request, n.error), Pool.Action(connection: .close(c(1)), request: .fail(r(request), n.error))))
        let pool = run(steps)
        #expect(pool.isEmpty)
    }

    @Test func cancelledRetryLeavesItsConnectionToTheQueue() {
        var configuration = Pool.Configuration()
        configuration.maximumConnectionsPerHost = 1
        _ = run([
            (0, .execute(1), create(1)),
            (0, .established(1), execute(1, on: 1)),
        ] + exchange(1, at: 1, then: idle(1, at: 1)) + [
            (2, .execute(2), reuse(2, on: 1)),
            (2, .requestFailed(2, lost), Pool.Action(
                connection: .closeAndCreate(close: c(1), create: c(2), keyA, connectDeadline: t(12)),
                request: .retry(r(2), on: .newConnection(c(2)))
            )),
            (2, .execute(3), .none),
            (2, .cancel(2), .none),
            (3, .established(2), execute(3, on: 2)),
        ], configuration: configuration)
    }

    // MARK: Cancellation

    @Test func cancelWhileQueuedOrConnectingTouchesNoConnection() {
        var configuration = Pool.Configuration()
        configuration.maximumConnectionsPerHost = 1
        let pool = run([
            (0, .execute(1), create(1)),
            (0, .execute(2), .none),
            (0, .cancel(2), .none),
            (0, .cancel(1), .none),
            // Nobody waits any more: the connection goes idle when ready.
            (1, .established(1), idle(1, at: 1)),
        ], configuration: configuration)
        #expect(pool.idleConnectionCount(for: keyA) == 1)
    }

    @Test func cancelBeforeWritingKeepsTheConnection() {
        var configuration = Pool.Configuration()
        configuration.maximumConnectionsPerHost = 1
        _ = run([
            (0, .execute(1), create(1)),
            (0, .execute(2), .none),
            (0, .established(1), execute(1, on: 1)),
            (0, .cancel(1), execute(2, on: 1)),
            (0, .cancel(2), idle(1, at: 0)),
        ], configuration: configuration)
    }

    @Test func cancelMidRequestClosesTheConnection() {
        var configuration = Pool.Configuration()
        configuration.maximumConnectionsPerHost = 1
        _ = run([
            (0, .execute(1), create(1)),
            (0, .established(1), execute(1, on: 1)),
            (0, .writeStarted(1), .none),
            (0, .cancel(1), close(1)),
            (1, .execute(2), create(2, at: 1)),
            (1, .execute(3), .none),
            (1, .established(2), execute(2, on: 2)),
            (1, .writeStarted(2), .none),
            (1, .responseBytes(2), .none),
            // Mid-response, with a request waiting: close and replace.
            (2, .cancel(2), closeAndCreate(2, 3, at: 2)),
            (2, .established(3), execute(3, on: 3)),
        ], configuration: configuration)
    }

    @Test func cancelIsIdempotent() {
        _ = run([
            (0, .execute(1), create(1)),
            (0, .established(1), execute(1, on: 1)),
        ] + exchange(1, at: 1, then: idle(1, at: 1)) + [
            (1, .cancel(1), .none),
            (1, .cancel(1), .none),
            (1, .cancel(99), .none),
        ])
    }

    // MARK: Connect failures and timeouts

    @Test func connectFailureFailsTheOldestWaitingRequest() {
        var configuration = Pool.Configuration()
        configuration.maximumConnectionsPerHost = 1
        _ = run([
            (0, .execute(1), create(1)),
            (0, .execute(2), .none),
            (0.1, .connectFailed(1, refused), Pool.Action(
                connection: .closeAndCreate(close: c(1), create: c(2), keyA, connectDeadline: t(10.1)),
                request: .fail(r(1), refused)
            )),
            (0.2, .connectFailed(2, refused), Pool.Action(connection: .close(c(2)), request: .fail(r(2), refused))),
        ], configuration: configuration)
    }

    @Test func connectFailureWithNobodyWaitingOnlyCloses() {
        _ = run([
            (0, .execute(1), create(1)),
            (0, .cancel(1), .none),
            (1, .connectFailed(1, refused), close(1)),
        ])
    }

    @Test func connectTimeoutFailsWithATimeoutError() {
        let pool = run([
            (0, .execute(1), create(1)),
            (10, .connectTimeout(1), Pool.Action(connection: .close(c(1)), request: .fail(r(1), .timedOut(.connect)))),
            (11, .execute(2), create(2, at: 11)),
            (11.5, .established(2), execute(2, on: 2)),
            // A connect timer that fires after the connection was made is stale.
            (21, .connectTimeout(2), .none),
        ])
        #expect(pool.connectionCount(for: keyA) == 1)
    }

    @Test func requestTimeoutWhileQueuedRemovesItFromTheQueue() {
        var configuration = Pool.Configuration()
        configuration.maximumConnectionsPerHost = 1
        let pool = run([
            (0, .execute(1), create(1)),
            (0, .execute(2), .none),
            (5, .requestFailed(2, .timedOut(.total)), fail(2, .timedOut(.total))),
            (6, .established(1), execute(1, on: 1)),
        ] + exchange(1, at: 7, then: idle(1, at: 7)), configuration: configuration)
        #expect(pool.queuedRequestCount(for: keyA) == 0)
    }

    // MARK: Shutdown

    @Test func shutdownFailsEverythingAndRefusesNewRequests() {
        var pool = Pool()
        _ = pool.executeRequest(r(1), key: keyA, method: .get, now: t(0))
        _ = pool.executeRequest(r(2), key: keyB, method: .get, now: t(0))
        _ = pool.connectionEstablished(c(1), now: t(0))
        let shutdown = pool.shutdown(now: t(1))
        #expect(shutdown.failedRequests == [r(1), r(2)])
        #expect(shutdown.closedConnections == [c(1), c(2)])
        #expect(shutdown.error.code == .cancelled)
        #expect(pool.isEmpty)
        let late = pool.executeRequest(r(3), key: keyA, method: .get, now: t(2))
        #expect(late == fail(3, UVURLError(.resourceUnavailable, detail: "the session was shut down")))
    }

    /// The pool is the one owner of the request-connection link: it
    /// answers both ways while a request is leased, and neither before nor
    /// after.
    @Test func theLinkIsTheLeaseBothWaysAndOnlyWhileLeased() {
        var pool = Pool()
        _ = pool.executeRequest(r(1), key: keyA, method: .get, now: t(0))
        #expect(pool.connection(leasedTo: r(1)) == nil)
        #expect(pool.request(leasing: c(1)) == nil)
        _ = pool.connectionEstablished(c(1), now: t(0))
        #expect(pool.connection(leasedTo: r(1)) == c(1))
        #expect(pool.request(leasing: c(1)) == r(1))
        pool.requestWriteStarted(r(1))
        pool.responseBytesReceived(r(1))
        #expect(pool.connection(leasedTo: r(1)) == c(1))
        _ = pool.requestFinished(r(1), keepAlive: true, now: t(1))
        #expect(pool.connection(leasedTo: r(1)) == nil)
        #expect(pool.request(leasing: c(1)) == nil)
        #expect(pool.connection(leasedTo: r(99)) == nil && pool.request(leasing: c(99)) == nil)
    }

    @Test func idempotentMethods() {
        #expect(Pool.isIdempotent(.get) && Pool.isIdempotent(.head) && Pool.isIdempotent(.put))
        #expect(Pool.isIdempotent(.delete) && Pool.isIdempotent(.options) && Pool.isIdempotent(.trace))
        #expect(!Pool.isIdempotent(.post) && !Pool.isIdempotent(.patch))
    }
}

/// Impossible transitions trap, naming the rule and the state.
@Suite("ConnectionPoolStateMachine violations")
struct ConnectionPoolViolationTests {
    @Test func establishingAnUnknownConnectionTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var pool = ConnectionPoolStateMachine()
            _ = pool.connectionEstablished(.init(7), now: .init(uptimeNanoseconds: 0))
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("ConnectionPoolStateMachine.connectionEstablished: only a connecting connection can be established, but #7 is unknown to the pool"))
    }

    @Test func peerCloseOfALeasedConnectionTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var pool = ConnectionPoolStateMachine()
            let key = ConnectionKey(scheme: .http, host: "a", port: 80)
            _ = pool.executeRequest(.init(1), key: key, method: .get, now: .init(uptimeNanoseconds: 0))
            _ = pool.connectionEstablished(.init(1), now: .init(uptimeNanoseconds: 0))
            _ = pool.connectionClosed(.init(1), now: .init(uptimeNanoseconds: 0))
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("connectionClosed: only an idle connection can close on its own"))
        #expect(stderr.contains("but #1 is leased to r1"))
    }

    @Test func finishingAnUnwrittenRequestTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var pool = ConnectionPoolStateMachine()
            let key = ConnectionKey(scheme: .http, host: "a", port: 80)
            _ = pool.executeRequest(.init(1), key: key, method: .get, now: .init(uptimeNanoseconds: 0))
            _ = pool.requestFinished(.init(1), keepAlive: true, now: .init(uptimeNanoseconds: 0))
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("requestFinished: only a written request can finish, but r1 is queued"))
    }

    @Test func duplicateRequestIDTraps() async {
        await #expect(processExitsWith: .failure) {
            var pool = ConnectionPoolStateMachine()
            let key = ConnectionKey(scheme: .http, host: "a", port: 80)
            _ = pool.executeRequest(.init(1), key: key, method: .get, now: .init(uptimeNanoseconds: 0))
            _ = pool.executeRequest(.init(1), key: key, method: .get, now: .init(uptimeNanoseconds: 0))
        }
    }
}
