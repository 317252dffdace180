import Foundation
import UVCombine

/// "Timer Publisher" (Understanding Combine): `makeTimer()` subscribes a
/// `Subscribers.Sink` to the timer publisher, keeps the cancellable from
/// `connect()` in a set, and stops the timer by emptying the set.
struct TimerSeedScenario: DemoScenario {
    let title = "Timer publisher: makeTimer(), connect().store(in:), removeAll() stops it"

    final class Controller {
        var timerCancellable = Set<AnyCancellable>()
        var fractionChecks = 0
        let loop: UVLoop
        let log: DemoLog
        let interval: Double

        init(loop: UVLoop, log: DemoLog, interval: Double) {
            self.loop = loop
            self.log = log
            self.interval = interval
        }

        func checkFraction() {
            fractionChecks += 1
            log("checkFraction() #\(fractionChecks)")
        }

        // The seed's code, with the loop in place of the run loop.
        func makeTimer() {
            self.timerCancellable.first?.cancel()
            let timerPublisher = UVTimer.publish(every: .nanoseconds(Int(interval * 1e9)), on: loop)
            let timerPipeline = Subscribers.Sink<Date, Never>(receiveCompletion: { _ in }) {
                [unowned self] _ in self.checkFraction()
            }
            timerPublisher.subscribe(timerPipeline)
            timerPublisher.connect()
                .store(in: &self.timerCancellable)
        }
    }

    func run(on loop: UVLoop, scale: Double, log: DemoLog) -> [String] {
        let interval = 0.5 * scale
        let controller = Controller(loop: loop, log: log, interval: interval)
        log("makeTimer(): Timer publisher every \(interval)s, subscribed with a Sink, connect().store(in:)")
        controller.makeTimer()
        var checksWhenStopped = 0
        loop.after(interval * 3.5) {
            checksWhenStopped = controller.fractionChecks
            log("self.timerCancellable.removeAll(): the timer stops")
            controller.timerCancellable.removeAll()
        }
        loop.run()
        var problems: [String] = []
        if checksWhenStopped != 3 {
            problems.append("expected 3 firings in 3.5 intervals, saw \(checksWhenStopped)")
        }
        if controller.fractionChecks != checksWhenStopped {
            problems.append("the timer fired after removeAll()")
        }
        return problems
    }
}

/// "Timer Publisher": `autoconnect()`, then `scan` pairs each date with the
/// previous one and `map` prints the interval between firings.
struct TimerIntervalsScenario: DemoScenario {
    let title = "Timer publisher: autoconnect() and the scan of intervals between firings"

    func run(on loop: UVLoop, scale: Double, log: DemoLog) -> [String] {
        let interval = 1.0 * scale
        var storage = Set<AnyCancellable>()
        var intervals: [Double] = []
        UVTimer.publish(every: .nanoseconds(Int(interval * 1e9)), on: loop)
            .autoconnect()
            .scan((prev: Date.distantPast, now: Date())) { (prev: $0.now, now: $1) }
            .map { $0.now.timeIntervalSince($0.prev) }
            .sink {
                intervals.append($0)
                log("interval since the last firing: \(String(format: "%.3f", $0))s")
            }
            .store(in: &storage)
        loop.after(interval * 3.5) {
            log("storage.removeAll(): the subscriber leaves, autoconnect disconnects")
            storage.removeAll()
        }
        loop.run()
        var problems: [String] = []
        if intervals.count != 3 { problems.append("expected 3 intervals, saw \(intervals.count)") }
        // Firings keep to a fixed schedule (never early against it), so one
        // late firing makes the next interval shorter: check the sum, and
        // each interval only loosely.
        let total = intervals.reduce(0, +)
        if total < interval * 2.99 || total > interval * 3.5 {
            problems.append("3 firings took \(total)s, expected about \(3 * interval)s")
        }
        for value in intervals where value <= 0 || value > interval * 2 {
            problems.append("interval \(value)s is not about \(interval)s")
        }
        return problems
    }
}
