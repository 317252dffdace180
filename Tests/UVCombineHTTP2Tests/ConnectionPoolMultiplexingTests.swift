import HTTPTypes
import Testing
import UVCombineHTTPCore

// The pool's HTTP/2 rules (ConnectionPoolStateMachine+Multiplexing.swift),
// fed events and checked action by action, without sockets.

private typealias Pool = ConnectionPoolStateMachine

private func t(_ seconds: Double) -> HTTPDeadline { HTTPDeadline(uptimeNanoseconds: UInt64(seconds * 1_000_000_000)) }
private func r(_ n: Int) -> Pool.RequestID { Pool.RequestID(n) }
private func c(_ n: Int) -> Pool.ConnectionID { Pool.ConnectionID(n) }

private let h2c: ConnectionKey = {
    var key = ConnectionKey(scheme: .http, host: "a.example", port: 80)
    key.httpVersion = .http2PriorKnowledge
    return key
}()
private let automatic: ConnectionKey = {
    var key = ConnectionKey(scheme: .https, host: "a.example", port: 443)
    key.httpVersion = .automatic
    return key
}()
private let refused = UVURLError(.networkConnectionLost, detail: "HTTP/2: stream refused")
private let reset = UVURLError(.networkConnectionLost, detail: "HTTP/2: stream reset")

/// Runs the lease loop the engine runs: every request given a stream.
private func leaseAll(_ pool: inout Pool, on connection: Int) -> [Int] {
    var leased: [Int] = []
    while let request = pool.leaseStream(on: c(connection)) { leased.append(request.rawValue) }
    return leased
}

@Suite("Connection pool: HTTP/2 multiplexing")
struct ConnectionPoolMultiplexingTests {
    @Test("one connection per origin while HTTP/2 is negotiated; streams up to the server's limit once SETTINGS came")
    func oneConnectionManyStreams() {
        var pool = Pool()
        #expect(pool.executeRequest(r(1), key: h2c, method: .get, now: t(0))
                == Pool.Action(connection: .create(c(1), h2c, connectDeadline: t(10))))
        for n in 2...5 {
            #expect(pool.executeRequest(r(n), key: h2c, method: .get, now: t(0)) == .none, "request \(n) waits for the one connection")
        }
        #expect(pool.multiplexedConnectionEstablished(c(1), now: t(1)) == .none)
        #expect(leaseAll(&pool, on: 1) == [], "nothing before the server's SETTINGS")
        #expect(pool.multiplexedSettingsReceived(c(1), maximumStreams: 3, now: t(1)) == .none)
        #expect(leaseAll(&pool, on: 1) == [1, 2, 3])
        #expect(pool.streamCount(on: c(1)) == 3)
        #expect(pool.queuedRequestCount(for: h2c) == 2)
        pool.requestWriteStarted(r(1))
        #expect(pool.requestFinished(r(1), keepAlive: false, now: t(2)) == .none, "keep-alive means nothing to a stream")
        #expect(leaseAll(&pool, on: 1) == [4])
        #expect(pool.connectionCount(for: h2c) == 1)
    }

    @Test("a request arriving with room is executed at once; the last stream's end starts the idle timeout")
    func directLeaseAndIdle() {
        var pool = Pool()
        _ = pool.executeRequest(r(1), key: h2c, method: .get, now: t(0))
        _ = pool.multiplexedConnectionEstablished(c(1), now: t(0))
        _ = pool.multiplexedSettingsReceived(c(1), maximumStreams: nil, now: t(0))
        #expect(leaseAll(&pool, on: 1) == [1])
        #expect(pool.executeRequest(r(2), key: h2c, method: .get, now: t(0))
                == Pool.Action(request: .execute(r(2), on: c(1))))
        pool.requestWriteStarted(r(1))
        pool.requestWriteStarted(r(2))
        #expect(pool.requestFinished(r(1), keepAlive: true, now: t(1)) == .none)
        #expect(pool.requestFinished(r(2), keepAlive: true, now: t(2))
                == Pool.Action(connection: .scheduleIdleTimeout(c(1), t(62))))
        #expect(pool.executeRequest(r(3), key: h2c, method: .get, now: t(3))
                == Pool.Action(connection: .cancelIdleTimeout(c(1)), request: .execute(r(3), on: c(1))))
        pool.requestWriteStarted(r(3))
        _ = pool.requestFinished(r(3), keepAlive: true, now: t(4))
        #expect(pool.idleTimeoutFired(c(1), now: t(10)) == Pool.Action(connection: .scheduleIdleTimeout(c(1), t(64))))
        #expect(pool.idleTimeoutFired(c(1), now: t(64)) == Pool.Action(connection: .close(c(1))))
        #expect(pool.isEmpty)
    }

    @Test("MAX_CONCURRENT_STREAMS 1: requests run one after the other on one connection")
    func oneStream() {
        var pool = Pool()
        for n in 1...3 { _ = pool.executeRequest(r(n), key: h2c, method: .get, now: t(0)) }
        _ = pool.multiplexedConnectionEstablished(c(1), now: t(0))
        _ = pool.multiplexedSettingsReceived(c(1), maximumStreams: 1, now: t(0))
        for n in 1...3 {
            #expect(leaseAll(&pool, on: 1) == [n])
            pool.requestWriteStarted(r(n))
            _ = pool.requestFinished(r(n), keepAlive: true, now: t(1))
        }
        #expect(pool.connectionCount(for: h2c) == 1)
    }

    @Test("a full connection: another one when configured, never before the first one's SETTINGS")
    func secondConnectionWhenFull() {
        var configuration = Pool.Configuration()
        configuration.maximumMultiplexedConnectionsPerHost = 2
        var pool = Pool(configuration: configuration)
        _ = pool.executeRequest(r(1), key: h2c, method: .get, now: t(0))
        _ = pool.executeRequest(r(2), key: h2c, method: .get, now: t(0))
        #expect(pool.multiplexedConnectionEstablished(c(1), now: t(0)) == .none)
        #expect(pool.executeRequest(r(3), key: h2c, method: .get, now: t(0)) == .none, "SETTINGS not known yet")
        _ = pool.multiplexedSettingsReceived(c(1), maximumStreams: 2, now: t(0))
        #expect(leaseAll(&pool, on: 1) == [1, 2])
        #expect(pool.connectionNeeded(besides: c(1), now: t(0))
                == .create(c(2), h2c, connectDeadline: t(10)), "full, r3 waits: a second connection")
        #expect(pool.executeRequest(r(4), key: h2c, method: .get, now: t(0)) == .none, "the second one serves r3 and r4")
        var other = Pool()
        _ = other.executeRequest(r(1), key: h2c, method: .get, now: t(0))
        _ = other.multiplexedConnectionEstablished(c(1), now: t(0))
        _ = other.multiplexedSettingsReceived(c(1), maximumStreams: 1, now: t(0))
        #expect(leaseAll(&other, on: 1) == [1])
        #expect(other.executeRequest(r(2), key: h2c, method: .get, now: t(0))
                == .none, "the default allows one HTTP/2 connection per host: it waits for a stream")
        #expect(other.connectionNeeded(besides: c(1), now: t(0)) == .none)
        // With 2 allowed, the full connection gets a sibling.
        var two = Pool(configuration: configuration)
        _ = two.executeRequest(r(1), key: h2c, method: .get, now: t(0))
        _ = two.multiplexedConnectionEstablished(c(1), now: t(0))
        _ = two.multiplexedSettingsReceived(c(1), maximumStreams: 1, now: t(0))
        #expect(leaseAll(&two, on: 1) == [1])
        #expect(two.executeRequest(r(2), key: h2c, method: .get, now: t(0))
                == Pool.Action(connection: .create(c(2), h2c, connectDeadline: t(10))))
    }

    @Test("GOAWAY: refused streams go back to the queue and a new connection is made; the rest fail")
    func goAway() {
        var pool = Pool()
        for n in 1...3 { _ = pool.executeRequest(r(n), key: h2c, method: .get, now: t(0)) }
        _ = pool.multiplexedConnectionEstablished(c(1), now: t(0))
        _ = pool.multiplexedSettingsReceived(c(1), maximumStreams: 10, now: t(0))
        #expect(leaseAll(&pool, on: 1) == [1, 2, 3])
        for n in 1...3 { pool.requestWriteStarted(r(n)) }
        #expect(pool.multiplexedConnectionGoingAway(c(1), now: t(1)) == .none, "streams still run; nobody waits")
        #expect(pool.executeRequest(r(4), key: h2c, method: .get, now: t(1))
                == Pool.Action(connection: .create(c(2), h2c, connectDeadline: t(11))), "no new stream on a connection going away")
        #expect(pool.streamFailed(r(3), error: refused, isRetryable: true, now: t(1))
                == Pool.Action(request: .retry(r(3), on: .queue)), "the new connection serves it")
        #expect(pool.streamFailed(r(2), error: reset, isRetryable: false, now: t(1))
                == Pool.Action(request: .fail(r(2), reset)))
        _ = pool.requestFinished(r(1), keepAlive: true, now: t(1))
        #expect(pool.connectionCount(for: h2c) == 1, "the connection going away closed with its last stream")
        _ = pool.multiplexedConnectionEstablished(c(2), now: t(2))
        _ = pool.multiplexedSettingsReceived(c(2), maximumStreams: 10, now: t(2))
        #expect(leaseAll(&pool, on: 2) == [3, 4], "the retried request first")
        pool.requestWriteStarted(r(3))
        _ = pool.multiplexedConnectionGoingAway(c(2), now: t(3))
        #expect(pool.streamFailed(r(3), error: refused, isRetryable: true, now: t(3)).request == .retry(r(3), on: .queue))
    }

    @Test("a request refused maximumStreamRefusals times fails with the refusal")
    func refusalLimit() {
        var configuration = Pool.Configuration()
        configuration.maximumStreamRefusals = 2
        var pool = Pool(configuration: configuration)
        _ = pool.executeRequest(r(1), key: h2c, method: .get, now: t(0))
        for round in 1...3 {
            _ = pool.multiplexedConnectionEstablished(c(round), now: t(0))
            _ = pool.multiplexedSettingsReceived(c(round), maximumStreams: 10, now: t(0))
            #expect(leaseAll(&pool, on: round) == [1])
            pool.requestWriteStarted(r(1))
            _ = pool.multiplexedConnectionGoingAway(c(round), now: t(0))
            let action = pool.streamFailed(r(1), error: refused, isRetryable: true, now: t(0))
            if round < 3 {
                #expect(action == Pool.Action(connection: .closeAndCreate(close: c(round), create: c(round + 1), h2c,
                                                                          connectDeadline: t(10)),
                                              request: .retry(r(1), on: .queue)))
            } else {
                #expect(action == Pool.Action(connection: .close(c(3)), request: .fail(r(1), refused)))
            }
        }
        #expect(pool.isEmpty)
    }

    @Test("the last stream of a connection going away closes it, creating another for waiting requests")
    func goAwayCloseAndCreate() {
        var pool = Pool()
        _ = pool.executeRequest(r(1), key: h2c, method: .get, now: t(0))
        _ = pool.multiplexedConnectionEstablished(c(1), now: t(0))
        _ = pool.multiplexedSettingsReceived(c(1), maximumStreams: 10, now: t(0))
        _ = leaseAll(&pool, on: 1)
        pool.requestWriteStarted(r(1))
        _ = pool.multiplexedConnectionGoingAway(c(1), now: t(1))
        #expect(pool.streamFailed(r(1), error: refused, isRetryable: true, now: t(1))
                == Pool.Action(connection: .closeAndCreate(close: c(1), create: c(2), h2c, connectDeadline: t(11)),
                               request: .retry(r(1), on: .queue)))
    }

    @Test("cancel and a stream's own failure free the stream, never the connection")
    func cancelAndFailure() {
        var pool = Pool()
        for n in 1...2 { _ = pool.executeRequest(r(n), key: h2c, method: .get, now: t(0)) }
        _ = pool.multiplexedConnectionEstablished(c(1), now: t(0))
        _ = pool.multiplexedSettingsReceived(c(1), maximumStreams: 10, now: t(0))
        _ = leaseAll(&pool, on: 1)
        pool.requestWriteStarted(r(1))
        pool.requestWriteStarted(r(2))
        pool.responseBytesReceived(r(1))
        #expect(pool.cancelRequest(r(1), now: t(1)) == .none)
        let timeout = UVURLError.timedOut(.idleRead)
        #expect(pool.requestFailed(r(2), error: timeout, now: t(2))
                == Pool.Action(connection: .scheduleIdleTimeout(c(1), t(62)), request: .fail(r(2), timeout)))
        #expect(pool.connectionCount(for: h2c) == 1)
        #expect(pool.connectionClosed(c(1), now: t(3)) == Pool.Action(connection: .close(c(1))))
    }

    @Test("automatic over TLS: one connection while ALPN is negotiated; HTTP/1.1 chosen opens the others")
    func automaticFallsBackToHTTP1() {
        var pool = Pool()
        #expect(pool.executeRequest(r(1), key: automatic, method: .get, now: t(0))
                == Pool.Action(connection: .create(c(1), automatic, connectDeadline: t(10))))
        #expect(pool.executeRequest(r(2), key: automatic, method: .get, now: t(0)) == .none)
        #expect(pool.executeRequest(r(3), key: automatic, method: .get, now: t(0)) == .none)
        #expect(pool.connectionEstablished(c(1), now: t(1))
                == Pool.Action(connection: .create(c(2), automatic, connectDeadline: t(11)), request: .execute(r(1), on: c(1))))
        #expect(pool.executeRequest(r(4), key: automatic, method: .get, now: t(1))
                == Pool.Action(connection: .create(c(3), automatic, connectDeadline: t(11))), "HTTP/1.1's rules from now on")
    }

    @Test("streamFailed for a request not on an HTTP/2 connection is a violation, named")
    func describesMultiplexed() {
        var pool = Pool()
        _ = pool.executeRequest(r(1), key: h2c, method: .get, now: t(0))
        _ = pool.multiplexedConnectionEstablished(c(1), now: t(0))
        _ = pool.multiplexedSettingsReceived(c(1), maximumStreams: 4, now: t(0))
        #expect(pool.streamCount(on: c(1)) == 0)
        #expect(pool.connection(leasedTo: r(1)) == nil)
        _ = leaseAll(&pool, on: 1)
        #expect(pool.connection(leasedTo: r(1)) == c(1))
        #expect(pool.request(leasing: c(1)) == nil, "a multiplexed connection names no single request")
    }
}
