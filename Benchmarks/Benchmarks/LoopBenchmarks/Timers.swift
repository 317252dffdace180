import Benchmark
import BenchmarkSupport
import LoopSupport
import UVCombine

/// 100,000 timers, each created, fired once and torn down per iteration,
/// with the three phases reported apart (libuv's million-timers benchmark:
/// init, dispatch, cleanup). On UVCombine each timer is what a user writes:
/// `UVTimer.publish(every:on:)`, a `sink`, `connect()`; beside it the same on
/// bare `uv_timer_t`s. Reported per timer.
///
/// Dispatch runs the loop until every timer delivered one firing. The timers
/// repeat every 2 s, so each fires once before the last one has fired; CPU
/// time (not the wall clock, which waits for the 2 s to pass) is the figure.
func registerTimers() {
    let configuration = Workload.configuration(maxIterations: 12, maxDuration: .seconds(40))
    let count = LoopWorkload.timers

    for phase in [TimerPhase.setup, .dispatch, .teardown] {
        Benchmark("Loop.timers100k.publisher.\(phase)", configuration: configuration) { benchmark in
            let measure = { (measured: TimerPhase, body: () -> Void) in
                if measured == phase { benchmark.measure(elements: count, body) } else { body() }
            }
            let loop = makeLoop()
            let countdown = Countdown(loop: loop, count: count)
            var subscriptions: [AnyCancellable] = []
            var connections: [any Cancellable] = []
            subscriptions.reserveCapacity(count)
            connections.reserveCapacity(count)
            measure(.setup) {
                for _ in 0..<count {
                    let timer = UVTimer.publish(every: .milliseconds(LoopWorkload.timerIntervalMilliseconds), on: loop)
                    subscriptions.append(timer.sink { _ in countdown.tick() })
                    connections.append(timer.connect())
                }
            }
            measure(.dispatch) {
                loop.run()
            }
            precondition(countdown.remaining == 0, "Loop.timers100k: \(countdown.remaining) timers did not fire")
            measure(.teardown) {
                for connection in connections { connection.cancel() }
                for subscription in subscriptions { subscription.cancel() }
                connections = []
                subscriptions = []
                finish(loop)
            }
        }

        Benchmark("Loop.timers100k.uv.\(phase)", configuration: configuration) { benchmark in
            let measure = { (measured: TimerPhase, body: () -> Void) in
                if measured == phase { benchmark.measure(elements: count, body) } else { body() }
            }
            let timers = BareTimers(count: count)
            timers.remaining = -1 // one-shot timers: uv_run returns when all fired
            measure(.setup) {
                timers.start(timeout: UInt64(LoopWorkload.timerIntervalMilliseconds), repeatInterval: 0)
            }
            measure(.dispatch) {
                timers.run()
            }
            precondition(timers.fired == count, "Loop.timers100k.uv: \(count - timers.fired) timers did not fire")
            measure(.teardown) {
                timers.close()
            }
        }

        // The same bare timers, repeating like the publisher's (which
        // re-arms every interval): each fires once, then the loop stops
        // with every timer still in libuv's timer heap, so closing them
        // removes each from the heap, as cancelling the publishers does.
        // (One-shot timers have left the heap by teardown: closing them
        // touches nothing but the handle.)
        Benchmark("Loop.timers100k.uvRepeating.\(phase)", configuration: configuration) { benchmark in
            let measure = { (measured: TimerPhase, body: () -> Void) in
                if measured == phase { benchmark.measure(elements: count, body) } else { body() }
            }
            let timers = BareTimers(count: count)
            timers.remaining = count // uv_stop once each fired once
            let interval = UInt64(LoopWorkload.timerIntervalMilliseconds)
            measure(.setup) {
                timers.start(timeout: interval, repeatInterval: interval)
            }
            measure(.dispatch) {
                timers.run()
            }
            precondition(timers.fired == count, "Loop.timers100k.uvRepeating: \(count - timers.fired) timers did not fire")
            measure(.teardown) {
                timers.close()
            }
        }
    }
}
