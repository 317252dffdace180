import Foundation
import UVCombine

/// "Controlling Publishing with Connectable Publishers" (Apple), its last
/// example: `Timer.publish(every: 1, on: .main, in: .default).autoconnect()`
/// fires into a sink without any `connect()`; cancelling the sink
/// disconnects the timer.
struct AutoconnectScenario: DemoScenario {
    let title = "Autoconnect: a once-a-second timer publisher delivers as soon as a subscriber attaches"
    let source = "Apple, \"Controlling Publishing with Connectable Publishers\", Use the Autoconnect Operator"
    let verdict = "autoconnect() connected the timer on subscription; cancel() stopped it after three firings"

    func run(_ demo: DemoContext) -> [String] {
        let log = demo.log
        let interval = demo.seconds(1)
        var dates: [Date] = []
        let subscribed = Date()

        log("let cancellable = UVTimer.publish(every: \(demo.text(1)), on: loop).autoconnect().sink { … }")
        let cancellable = UVTimer.publish(every: demo.stride(1), on: demo.loop)
            .autoconnect()
            .sink() { date in
                dates.append(date)
                log("Date now: \(date)")
            }
        demo.after(3.5) {
            log("cancellable.cancel(): autoconnect disconnects, the timer stops")
            cancellable.cancel()
        }
        // Returns only once the timer stopped: a running uv_timer would
        // keep the loop alive.
        demo.run()

        var problems: [String] = []
        if dates.count != 3 {
            problems.append("expected 3 firings in 3.5 intervals, saw \(dates.count)")
        }
        if let first = dates.first, first.timeIntervalSince(subscribed) < interval - 0.002 {
            problems.append("the first firing came \(first.timeIntervalSince(subscribed)) s after subscribing, before one interval")
        }
        if zip(dates, dates.dropFirst()).contains(where: { $0 >= $1 }) {
            problems.append("the dates are not increasing: \(dates)")
        }
        return problems
    }
}
