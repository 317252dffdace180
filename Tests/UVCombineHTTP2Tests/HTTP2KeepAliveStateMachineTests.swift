import Testing
import UVCombineHTTP2
import UVCombineHTTPCore

/// PING keep-alive and idle close on virtual time.
@Suite("HTTP/2 keep-alive state machine")
struct HTTP2KeepAliveStateMachineTests {
    static func at(_ seconds: UInt64) -> HTTPDeadline { HTTPDeadline(uptimeNanoseconds: seconds * 1_000_000_000) }

    @Test("an idle connection closes after the idle timeout")
    func idleClose() {
        var machine = HTTP2KeepAliveStateMachine(pingInterval: nil, pingTimeout: .seconds(5), idleTimeout: .seconds(60), now: Self.at(0))
        let early = machine.timerFired(now: Self.at(30))
        #expect(early == .init(armTimer: Self.at(60)))
        let idle = machine.timerFired(now: Self.at(60))
        #expect(idle == .init(closeIdle: true))
        let after = machine.timerFired(now: Self.at(90))
        #expect(after == .init())
    }

    @Test("an open stream keeps the connection; the idle clock starts when the last stream closes")
    func streamsHoldIdleClose() {
        var machine = HTTP2KeepAliveStateMachine(pingInterval: nil, pingTimeout: .seconds(5), idleTimeout: .seconds(60), now: Self.at(0))
        let opened = machine.streamOpened(now: Self.at(10))
        #expect(opened == .init(armTimer: nil))
        let busy = machine.timerFired(now: Self.at(100))
        #expect(busy == .init(armTimer: nil))
        let closed = machine.streamClosed(now: Self.at(100))
        #expect(closed == .init(armTimer: Self.at(160)))
        let idle = machine.timerFired(now: Self.at(160))
        #expect(idle == .init(closeIdle: true))
    }

    @Test("silence for the ping interval sends a PING; its acknowledgement re-arms")
    func pingAndAck() {
        var machine = HTTP2KeepAliveStateMachine(pingInterval: .seconds(30), pingTimeout: .seconds(5), idleTimeout: nil, now: Self.at(0))
        let active = machine.activity(now: Self.at(10))
        #expect(active == .init(armTimer: Self.at(40)))
        // libuv may fire early: only re-arm.
        let early = machine.timerFired(now: Self.at(39))
        #expect(early == .init(armTimer: Self.at(40)))
        let ping = machine.timerFired(now: Self.at(40))
        #expect(ping == .init(sendPing: true, armTimer: Self.at(45)))
        let acknowledged = machine.pingAcknowledged(now: Self.at(41))
        #expect(acknowledged == .init(armTimer: Self.at(71)))
    }

    @Test("a PING not acknowledged within the timeout fails the connection with pingTimeout")
    func pingTimeout() {
        var machine = HTTP2KeepAliveStateMachine(pingInterval: .seconds(30), pingTimeout: .seconds(5), idleTimeout: nil, now: Self.at(0))
        let ping = machine.timerFired(now: Self.at(30))
        #expect(ping.sendPing)
        let failure = machine.timerFired(now: Self.at(35))
        #expect(failure.fail == HTTP2Error(.pingTimeout))
        #expect(failure.fail?.detail == "no PING acknowledgement in 5000 ms")
        #expect(failure.fail?.urlError.code == .timedOut)
        let after = machine.timerFired(now: Self.at(40))
        #expect(after == .init())
    }

    @Test("closing a stream that was never opened traps, naming the rule")
    func closeWithoutOpen() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = HTTP2KeepAliveStateMachine(pingInterval: nil, pingTimeout: .seconds(5), idleTimeout: nil,
                                                     now: HTTPDeadline(uptimeNanoseconds: 0))
            _ = machine.streamClosed(now: HTTPDeadline(uptimeNanoseconds: 1))
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("HTTP2KeepAliveStateMachine.streamClosed without an open stream"))
    }
}

@Suite("HTTP/2 small values")
struct HTTP2ValueTests {
    @Test("ALPN ids and their wire format")
    func alpn() {
        #expect(HTTP2ALPN.http2 == "h2")
        #expect(HTTP2ALPN.http11 == "http/1.1")
        #expect(HTTP2ALPN.wireFormat([HTTP2ALPN.http2, HTTP2ALPN.http11]) == [2, 104, 50, 8] + Array("http/1.1".utf8))
        #expect(HTTP2ALPN.wireFormat(["", String(repeating: "x", count: 256), "h2"]) == [2, 104, 50])
    }

    @Test("the frame rate limit counts per fixed window")
    func rateLimit() {
        var limit = HTTP2FrameRateLimit(limit: 2, windowNanoseconds: 100)
        let allowed = [0, 50, 99, 100, 150, 160].map { limit.record(now: UInt64($0)) }
        #expect(allowed == [true, true, false, true, true, false])
    }

    @Test("errors map to UVURLError codes and describe themselves")
    func errorMapping() {
        #expect(HTTP2Error(.pingFlood).urlError.code == .badServerResponse)
        #expect(HTTP2Error(.streamReset, errorCode: .internalError).urlError.code == .networkConnectionLost)
        #expect(HTTP2Error(.invalidRequest).urlError.code == .invalidRequest)
        #expect(HTTP2Error(.pingTimeout).urlError.timeoutKind == .idleRead)
        #expect(HTTP2Error(.streamReset, errorCode: .cancel).description == "stream reset [CANCEL (0x8)]")
        #expect(HTTP2Error(.headerListTooLarge, detail: "x").urlError.detail == "HTTP/2: response header list too large (x)")
        #expect(HTTP2Error(.refusedStream).isRetryable)
        #expect(!HTTP2Error(.goAway).isRetryable)
    }
}
