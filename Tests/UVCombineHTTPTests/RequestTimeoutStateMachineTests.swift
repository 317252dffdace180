import Testing
import UVCombineHTTP
import UVCombineHTTPCore

private func t(_ seconds: Double) -> HTTPDeadline {
    HTTPDeadline(uptimeNanoseconds: UInt64(seconds * 1_000_000_000))
}

private func timeouts(idle: Double?, total: Double?) -> RequestTimeouts {
    var timeouts = RequestTimeouts()
    timeouts.idleRead = idle.map { .milliseconds(Int64($0 * 1000)) }
    timeouts.total = total.map { .milliseconds(Int64($0 * 1000)) }
    return timeouts
}

@Suite("RequestTimeoutStateMachine")
struct RequestTimeoutStateMachineTests {
    @Test func defaultsFollowURLSession() {
        let defaults = RequestTimeouts()
        #expect(defaults.idleRead == .seconds(60))
        #expect(defaults.total == .seconds(604_800))
        #expect(ConnectionPoolStateMachine.Configuration().connectTimeout == .seconds(10))
    }

    @Test func idleReadTimeoutFiresAfterSilence() {
        var machine = RequestTimeoutStateMachine(timeouts: timeouts(idle: 5, total: 100), now: t(0))
        #expect(machine.armedDeadline == t(100))
        #expect(machine.exchangeStarted(now: t(1)) == .arm(t(6)))
        #expect(machine.timerFired(now: t(6)) == .fail(.timedOut(.idleRead)))
        // Finished by the failure: nothing more.
        #expect(machine.timerFired(now: t(7)) == .none)
        #expect(machine.finished() == .none)
    }

    @Test func activityMovesTheDeadlineWithoutTouchingTheTimer() {
        var machine = RequestTimeoutStateMachine(timeouts: timeouts(idle: 5, total: 100), now: t(0))
        #expect(machine.exchangeStarted(now: t(0)) == .arm(t(5)))
        machine.activity(now: t(2))
        machine.activity(now: t(4))
        #expect(machine.armedDeadline == t(5))
        // The timer fires at the old deadline and re-arms at the real one.
        #expect(machine.timerFired(now: t(5)) == .arm(t(9)))
        #expect(machine.timerFired(now: t(9)) == .fail(.timedOut(.idleRead)))
    }

    @Test func totalTimeoutCoversTheWholeTask() {
        var machine = RequestTimeoutStateMachine(timeouts: timeouts(idle: 5, total: 12), now: t(0))
        #expect(machine.exchangeStarted(now: t(0)) == .arm(t(5)))
        machine.activity(now: t(4))
        #expect(machine.timerFired(now: t(5)) == .arm(t(9)))
        machine.activity(now: t(8))
        // Idle would be 13; the total deadline at 12 comes first.
        #expect(machine.timerFired(now: t(9)) == .arm(t(12)))
        #expect(machine.timerFired(now: t(12)) == .fail(.timedOut(.total)))
    }

    @Test func totalWinsWhenBothHavePassed() {
        var machine = RequestTimeoutStateMachine(timeouts: timeouts(idle: 5, total: 5), now: t(0))
        _ = machine.exchangeStarted(now: t(0))
        let action = machine.timerFired(now: t(5))
        #expect(action == .fail(.timedOut(.total)))
        if case .fail(let error) = action {
            #expect(error.code == .timedOut)
            #expect(error.timeoutKind == .total)
            #expect(error.detail == "total timeout")
        }
    }

    @Test func earlyTimerReArmsForTheSameDeadline() {
        var machine = RequestTimeoutStateMachine(timeouts: timeouts(idle: nil, total: 10), now: t(0))
        #expect(machine.timerFired(now: t(9.999)) == .arm(t(10)))
        #expect(machine.timerFired(now: t(10)) == .fail(.timedOut(.total)))
    }

    @Test func waitingBetweenExchangesRunsOnlyTheTotalTimeout() {
        var machine = RequestTimeoutStateMachine(timeouts: timeouts(idle: 5, total: 100), now: t(0))
        #expect(machine.exchangeStarted(now: t(0)) == .arm(t(5)))
        machine.exchangeEnded() // a redirect: the next connection is being made
        #expect(machine.timerFired(now: t(5)) == .arm(t(100)))
        #expect(machine.exchangeStarted(now: t(50)) == .arm(t(55)))
        #expect(machine.timerFired(now: t(55)) == .fail(.timedOut(.idleRead)))
    }

    @Test func exchangeStartedDoesNotReArmALaterDeadline() {
        var machine = RequestTimeoutStateMachine(timeouts: timeouts(idle: 60, total: 10), now: t(0))
        #expect(machine.exchangeStarted(now: t(1)) == .none, "the armed total deadline comes first")
        #expect(machine.armedDeadline == t(10))
    }

    @Test func noTimeoutsArmNothing() {
        var machine = RequestTimeoutStateMachine(timeouts: timeouts(idle: nil, total: nil), now: t(0))
        #expect(machine.armedDeadline == nil)
        #expect(machine.exchangeStarted(now: t(1)) == .none)
        #expect(machine.finished() == .none)
    }

    @Test func finishingCancelsTheTimerOnce() {
        var machine = RequestTimeoutStateMachine(timeouts: timeouts(idle: 5, total: 100), now: t(0))
        _ = machine.exchangeStarted(now: t(0))
        #expect(machine.finished() == .cancel)
        #expect(machine.finished() == .none)
        #expect(machine.timerFired(now: t(200)) == .none)
        #expect(machine.exchangeStarted(now: t(201)) == .none)
    }

    @Test func timeoutKindsAreDistinctErrors() {
        let kinds: [UVURLError.TimeoutKind] = [.connect, .idleRead, .total]
        for kind in kinds {
            let error = UVURLError.timedOut(kind)
            #expect(error.code == .timedOut)
            #expect(error.timeoutKind == kind)
        }
        #expect(UVURLError.timedOut(.connect).description == "the request timed out (connect timeout)")
        #expect(UVURLError.timedOut(.idleRead).detail == "idle read timeout")
    }

    @Test func deadlinesSaturate() {
        let late = HTTPDeadline(uptimeNanoseconds: .max - 5)
        #expect(late.advanced(by: .seconds(1)) == HTTPDeadline(uptimeNanoseconds: .max))
        #expect(t(1).advanced(by: .seconds(-3)) == t(1))
        #expect(t(1).advanced(by: .milliseconds(1500)) == t(2.5))
    }
}
