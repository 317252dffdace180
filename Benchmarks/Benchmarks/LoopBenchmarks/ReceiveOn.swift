import Benchmark
import BenchmarkSupport
import Foundation
import LoopSupport
import UVCombine

/// Values sent from another thread and delivered on the loop's thread:
/// `subject.receive(on: loop).sink { … }`, 1,000,000 values per iteration,
/// the loop running on the benchmark's thread. Measured from releasing the
/// producer until the last value arrived; reported per value. The wall
/// clock gives the throughput, the process's CPU time the cost on both
/// threads together.
///
/// Beside it, `Loop.schedule.crossThread`: the same values each sent as a
/// closure through `loop.schedule { … }`, the naive hop that `receive(on:)`
/// avoids (it queues values in a ring and schedules one drain per batch).
func registerReceiveOn() {
    let configuration = Workload.configuration(maxIterations: 30, maxDuration: .seconds(10))
    let values = LoopWorkload.crossThreadValues

    Benchmark("Loop.receiveOn.crossThread", configuration: configuration) { benchmark in
        let loop = makeLoop()
        let countdown = Countdown(loop: loop, count: values)
        let accumulator = Accumulator()
        let subject = PassthroughSubject<Int, Never>()
        let subscription = subject.receive(on: loop).sink { value in
            accumulator.add(value)
            countdown.tick()
        }
        let producer = Producer {
            for value in 0..<values { subject.send(value) }
        }
        let keepAlive = loop.keepAlive()
        benchmark.measure(elements: values) {
            producer.go()
            loop.run()
            producer.waitUntilDone()
        }
        keepAlive.cancel()
        subscription.cancel()
        finish(loop)
        blackHole(accumulator.total)
    }

    Benchmark("Loop.schedule.crossThread", configuration: configuration) { benchmark in
        let loop = makeLoop()
        let countdown = Countdown(loop: loop, count: values)
        let accumulator = Accumulator()
        let target = UncheckedBox((countdown, accumulator))
        let producer = Producer {
            for value in 0..<values {
                loop.schedule {
                    target.value.1.add(value)
                    target.value.0.tick()
                }
            }
        }
        let keepAlive = loop.keepAlive()
        benchmark.measure(elements: values) {
            producer.go()
            loop.run()
            producer.waitUntilDone()
        }
        keepAlive.cancel()
        finish(loop)
        blackHole(accumulator.total)
    }
}

/// Carries loop-confined objects into closures that run on the loop's
/// thread, which Swift cannot prove.
final class UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A thread started before the measured region that runs `work` once
/// released by ``go()``, so the thread's start costs nothing measured.
final class Producer: @unchecked Sendable {
    private let start = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    init(_ work: @escaping () -> Void) {
        let box = UncheckedBox(work)
        let thread = Thread { [start, done] in
            start.wait()
            box.value()
            done.signal()
        }
        thread.start()
    }

    func go() { start.signal() }
    func waitUntilDone() { done.wait() }
}
