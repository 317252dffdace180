import Foundation
import Testing
import UVCombineCore
import UVCombineFoundation
import UVCombineTesting

@Suite("Timer.publish on a RunLoop")
struct TimerPublisherTests {
    @Test func nothingBeforeConnectThenFirstValueOneIntervalAfter() {
        let timer = Timer.publish(every: 0.03, on: .current, in: .default)
        var dates: [Date] = []
        let c = timer.sink { dates.append($0) }
        runCurrentLoop(limit: 0.08) { false }
        #expect(dates.isEmpty)
        let connectedAt = Date()
        let connection = timer.connect()
        runCurrentLoop(limit: 2) { !dates.isEmpty }
        #expect(dates.count == 1)
        #expect((dates.first ?? .distantPast).timeIntervalSince(connectedAt) >= 0.029)
        connection.cancel()
        c.cancel()
    }

    @Test func keepsAFixedScheduleAfterALateFiring() throws {
        let interval = 0.1
        let timer = Timer.publish(every: interval, on: .current, in: .default)
        var dates: [Date] = []
        let c = timer.sink { date in
            dates.append(date)
            // Hold the run loop for 1.5 intervals on the first firing.
            if dates.count == 1 {
                let until = Date() + interval * 1.5
                while Date() < until {}
            }
        }
        let connectedAt = Date()
        let connection = timer.connect()
        runCurrentLoop(limit: 3) { dates.count >= 3 }
        connection.cancel()
        try #require(dates.count >= 3)
        // Firings stay on connect + k * interval: the one after the stall is
        // at 3 intervals (the one at 2 was missed), not at 2.5, one interval
        // after the stall (phase 0.5), as a timer re-armed from its last
        // firing would be.
        for date in dates {
            let offset = date.timeIntervalSince(connectedAt)
            let phase = offset - (offset / interval).rounded(.down) * interval
            #expect(offset >= interval - 0.001)
            #expect(phase < interval * 0.4, "firing \(offset)s after connect is off the schedule")
        }
        c.cancel()
    }

    @Test func firingsWithoutDemandAreDroppedNotQueued() {
        let timer = Timer.publish(every: 0.02, on: .current, in: .default)
        let tracker = TrackingSubscriber<Date, Never>(initialDemand: .none)
        timer.subscribe(tracker)
        let connection = timer.connect()
        runCurrentLoop(limit: 0.1) { false }
        #expect(tracker.values.isEmpty)
        let requestedAt = Date()
        tracker.request(.max(1))
        #expect(tracker.values.isEmpty) // nothing was kept for it
        runCurrentLoop(limit: 2) { !tracker.values.isEmpty }
        #expect(tracker.values.count == 1)
        #expect((tracker.values.first ?? .distantPast) >= requestedAt)
        runCurrentLoop(limit: 0.06) { false }
        #expect(tracker.values.count == 1) // demand was one
        connection.cancel()
        tracker.cancel()
    }

    @Test func eachConnectRunsItsOwnTimer() {
        let timer = Timer.publish(every: 0.05, on: .current, in: .default)
        var count = 0
        let c = timer.sink { _ in count += 1 }
        let first = timer.connect()
        let second = timer.connect()
        runCurrentLoop(limit: 2) { count >= 2 }
        #expect(count == 2) // both timers fired once, about one interval in
        first.cancel()
        second.cancel()
        c.cancel()
    }

    @Test func cancellingTheConnectionStopsAndDetachesSubscribers() {
        final class Witness {}
        weak var weakWitness: Witness?
        let timer = Timer.publish(every: 0.01, on: .current, in: .default)
        var count = 0
        var connection: (any Cancellable)?
        do {
            let witness = Witness()
            weakWitness = witness
            timer.subscribe(Subscribers.Sink<Date, Never>(receiveCompletion: { _ in Issue.record("no completion") }) { _ in
                _ = witness
                count += 1
            })
            connection = timer.connect()
        }
        runCurrentLoop(limit: 2) { count >= 2 }
        connection?.cancel()
        #expect(weakWitness == nil) // the sink was let go of
        let stopped = count
        runCurrentLoop(limit: 0.05) { false }
        #expect(count == stopped)
        connection?.cancel() // idempotent
    }

    @Test func autoconnectAndTheDropOfTheLastSubscriber() {
        let timer = Timer.publish(every: 0.01, on: .current, in: .default).autoconnect()
        var count = 0
        let c = timer.sink { _ in count += 1 }
        runCurrentLoop(limit: 2) { count >= 2 }
        #expect(count >= 2)
        c.cancel()
        let stopped = count
        runCurrentLoop(limit: 0.05) { false }
        #expect(count == stopped)
    }

    @Test func publisherProperties() {
        let timer = Timer.publish(every: 2, tolerance: 0.5, on: .main, in: .common)
        #expect(timer.interval == 2)
        #expect(timer.tolerance == 0.5)
        #expect(timer.runLoop === RunLoop.main)
        #expect(timer.mode == .common)
        #expect(timer.options == nil)
    }
}
