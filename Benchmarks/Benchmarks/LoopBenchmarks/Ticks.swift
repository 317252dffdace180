import Benchmark
import BenchmarkSupport
import LoopSupport
import UVCombine

/// What one tick costs: 1,000 timers firing every millisecond until 100,000
/// ticks were delivered, on `UVTimer.publish(every:on:)` with a `sink` and on
/// bare repeating `uv_timer_t`s. Only running the loop is measured; reported
/// per tick. The difference is the publisher's cost per firing: its fixed
/// schedule (re-armed per firing, never early, no drift), the `Date` it
/// sends, its delivery gate and demand, and the sink.
func registerTicks() {
    let configuration = Workload.configuration(maxIterations: 30, maxDuration: .seconds(10))
    let ticks = LoopWorkload.ticks

    Benchmark("Loop.tick.publisher", configuration: configuration) { benchmark in
        let loop = makeLoop()
        let countdown = Countdown(loop: loop, count: ticks)
        var subscriptions: [AnyCancellable] = []
        var connections: [any Cancellable] = []
        for _ in 0..<LoopWorkload.tickingTimers {
            let timer = UVTimer.publish(every: .milliseconds(1), on: loop)
            subscriptions.append(timer.sink { _ in countdown.tick() })
            connections.append(timer.connect())
        }
        benchmark.measure(elements: ticks) {
            loop.run()
        }
        for connection in connections { connection.cancel() }
        for subscription in subscriptions { subscription.cancel() }
        finish(loop)
    }

    Benchmark("Loop.tick.uv", configuration: configuration) { benchmark in
        let timers = BareTimers(count: LoopWorkload.tickingTimers)
        timers.remaining = ticks
        timers.start(timeout: 1, repeatInterval: 1)
        benchmark.measure(elements: ticks) {
            timers.run()
        }
        timers.close()
    }
}
