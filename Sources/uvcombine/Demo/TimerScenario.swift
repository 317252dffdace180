import Foundation
import UVCombine

/// "Timer Publisher" (Understanding Combine), both of its examples:
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

    /// The chapter's view controller, with the loop in place of the run
    /// loop and a counter in place of the progress view.
    final class Controller {
        var timerCancellable = Set<AnyCancellable>()
        var fractionChecks = 0
        let loop: UVLoop
        let log: DemoLog
        let interval: UVLoop.SchedulerTimeType.Stride

        init(loop: UVLoop, log: DemoLog, interval: UVLoop.SchedulerTimeType.Stride) {
            self.loop = loop
            self.log = log
            self.interval = interval
        }

        func checkFraction() {
            fractionChecks += 1
            log("checkFraction() #\(fractionChecks)")
        }

        // The chapter's code.
        func makeTimer() {
            self.timerCancellable.first?.cancel()
            let timerPublisher = UVTimer.publish(every: interval, on: loop)
            let timerPipeline = Subscribers.Sink<Date, Never>(receiveCompletion: { _ in }) {
                [unowned self] _ in self.checkFraction()
            }
            timerPublisher.subscribe(timerPipeline)
            timerPublisher.connect()
                .store(in: &self.timerCancellable)
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
        let controller = Controller(loop: demo.loop, log: log, interval: demo.stride(0.5))
        log("makeTimer(): Timer.publish(every: \(demo.text(0.5)), …), subscribe(Sink), connect().store(in: &self.timerCancellable)")
        controller.makeTimer()
        var checksWhenStopped = -1
        demo.after(1.75) {
            checksWhenStopped = controller.fractionChecks
            log("self.timerCancellable.removeAll(): the timer stops")
            controller.timerCancellable.removeAll()
        }
        // Returns only once the timer stopped.
        demo.run()
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
        log("Timer.publish(every: \(demo.text(1)), …).autoconnect()")
        log("    .scan((prev: Date.distantPast, now: Date())) { (prev: $0.now, now: $1) }")
        log("    .map { $0.now.timeIntervalSince($0.prev) }.sink { print($0) }.store(in: &storage)")
        UVTimer.publish(every: demo.stride(1), on: demo.loop)
            .autoconnect()
            .scan((prev: Date.distantPast, now: Date())) { (prev: $0.now, now: $1) }
            .map { $0.now.timeIntervalSince($0.prev) }
            .sink {
                intervals.append($0)
                log(String(format: "%.3f", $0))
            }
            .store(in: &storage)
        demo.after(3.5) {
            log("storage.removeAll(): the subscriber leaves, autoconnect disconnects")
            storage.removeAll()
        }
        demo.run()

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
