import Foundation
import UVCombine

/// "Timer Publisher" (Understanding Combine), both of its examples, with
/// the seed's own spellings: `Timer.publish(every:on: .main, in:)` on
/// Foundation's main run loop (the demo runs on the main thread, and
/// drives `RunLoop.main` while these run).
///
/// 1. `makeTimer()`: a `Subscribers.Sink` subscribed to the timer
///    publisher, `connect().store(in: &self.timerCancellable)`, and
///    `timerCancellable.removeAll()` to stop the timer.
/// 2. `autoconnect()` with `scan` pairing each date with the previous one
///    and `map` giving the interval between firings.
struct TimerScenario: DemoScenario {
    let title = "Timer publisher: connect().store(in:) in makeTimer(), and the scan of intervals between firings"
    let source = "Understanding Combine, \"Timer Publisher\""
    let verdict = "the timer fired on schedule, stopped when its cancellable left the set, and scan measured the intervals"

    /// The chapter's view controller, with a counter in place of the
    /// progress view.
    final class Controller {
        var timerCancellable = Set<AnyCancellable>()
        var fractionChecks = 0
        let log: DemoLog
        let interval: TimeInterval

        init(log: DemoLog, interval: TimeInterval) {
            self.log = log
            self.interval = interval
        }

        func checkFraction() {
            fractionChecks += 1
            log("checkFraction() #\(fractionChecks)")
        }

        // The chapter's code (the interval is scaled for --fast).
        func makeTimer() {
            self.timerCancellable.first?.cancel()
            let timerPublisher = Timer.publish(every: interval, on: .main, in: .common)
            let timerPipeline = Subscribers.Sink<Date, Never>(receiveCompletion: { _ in }) {
                [unowned self] _ in self.checkFraction()
            }
            timerPublisher.subscribe(timerPipeline)
            timerPublisher.connect()
                .store(in: &self.timerCancellable)
        }
    }

    /// Runs the main run loop until `done()` (or the watchdog expired).
    private func runMainRunLoop(_ demo: DemoContext, until done: () -> Bool) {
        while !done(), !demo.isExpired {
            _ = RunLoop.main.run(mode: .default, before: Date() + 0.05)
        }
    }

    func run(_ demo: DemoContext) -> [String] {
        var problems = makeTimer(demo)
        say("")
        problems += intervals(demo)
        return problems
    }

    private func makeTimer(_ demo: DemoContext) -> [String] {
        let log = demo.log
        let controller = Controller(log: log, interval: demo.seconds(0.5))
        log("makeTimer(): Timer.publish(every: \(demo.text(0.5)), on: .main, in: .common), subscribe(Sink), connect().store(in: &self.timerCancellable)")
        controller.makeTimer()
        var checksWhenStopped = -1
        // RunLoop is a Scheduler too: the stop is scheduled on it.
        RunLoop.main.schedule(after: RunLoop.main.now.advanced(by: .seconds(demo.seconds(1.75)))) {
            checksWhenStopped = controller.fractionChecks
            log("self.timerCancellable.removeAll(): the timer stops")
            controller.timerCancellable.removeAll()
        }
        runMainRunLoop(demo) { checksWhenStopped >= 0 }
        // A firing after removeAll() would show up here.
        let stoppedAt = Date()
        runMainRunLoop(demo) { Date() >= stoppedAt + demo.seconds(0.75) }
        var problems: [String] = []
        if checksWhenStopped != 3 {
            problems.append("makeTimer(): expected 3 firings in 3.5 intervals, saw \(checksWhenStopped)")
        }
        if controller.fractionChecks != checksWhenStopped {
            problems.append("makeTimer(): the timer fired after removeAll()")
        }
        return problems
    }

    private func intervals(_ demo: DemoContext) -> [String] {
        let log = demo.log
        let interval = demo.seconds(1)
        var storage = Set<AnyCancellable>()
        var intervals: [Double] = []
        log("Timer.publish(every: \(demo.text(1)), on: .main, in: .default).autoconnect()")
        log("    .scan((prev: Date.distantPast, now: Date())) { (prev: $0.now, now: $1) }")
        log("    .map { $0.now.timeIntervalSince($0.prev) }.sink { print($0) }.store(in: &storage)")
        Timer.publish(every: interval, on: .main, in: .default)
            .autoconnect()
            .scan((prev: Date.distantPast, now: Date())) { (prev: $0.now, now: $1) }
            .map { $0.now.timeIntervalSince($0.prev) }
            .sink {
                intervals.append($0)
                log(String(format: "%.3f", $0))
            }
            .store(in: &storage)
        var stopped = false
        RunLoop.main.schedule(after: RunLoop.main.now.advanced(by: .seconds(demo.seconds(3.5)))) {
            log("storage.removeAll(): the subscriber leaves, autoconnect disconnects")
            storage.removeAll()
            stopped = true
        }
        runMainRunLoop(demo) { stopped }

        var problems: [String] = []
        if intervals.count != 3 {
            problems.append("scan: expected 3 intervals, saw \(intervals.count)")
        }
        // Firings keep to a fixed schedule and are never early against it:
        // together they span at least three intervals from the subscription.
        // One late firing (a busy machine) makes the next interval shorter,
        // so each interval is checked only loosely.
        let total = intervals.reduce(0, +)
        if total < interval * 3 - 0.003 {
            problems.append("scan: 3 firings took \(total) s, less than 3 intervals of \(interval) s")
        }
        for value in intervals where value <= 0 || value > interval + 0.5 {
            problems.append("scan: interval \(value) s is not about \(interval) s")
        }
        return problems
    }
}
