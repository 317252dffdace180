import Benchmark
import BenchmarkSupport
import UVCombine

/// Values through operators issue 31 rebuilt on shared engines (zip,
/// catch, receive(on:), prefix(untilOutputFrom:)), `Workload.values` per
/// iteration, reported per value sent. Only the sending loop is measured.
/// `merge` and `combineLatest` are missing: OpenCombine 0.14 has neither,
/// and both targets must run the same text.
func registerOperators() {
    Benchmark("Operator.zip") { benchmark in
        let first = PassthroughSubject<Int, Never>()
        let second = PassthroughSubject<Int, Never>()
        let accumulator = Accumulator()
        let cancellable = first.zip(second).sink { accumulator.add($0.0 &+ $0.1) }
        benchmark.measure(elements: Workload.values) {
            var value = 0
            while value < Workload.values {
                first.send(value)
                second.send(value &+ 1)
                value &+= 2
            }
        }
        cancellable.cancel()
        blackHole(accumulator.total)
    }

    Benchmark("Operator.catch") { benchmark in
        struct Failure: Error {}
        let subject = PassthroughSubject<Int, Failure>()
        let accumulator = Accumulator()
        let cancellable = subject
            .catch { _ in Just(0) }
            .sink { accumulator.add($0) }
        benchmark.measure(elements: Workload.values) {
            for value in 0..<Workload.values { subject.send(value) }
        }
        cancellable.cancel()
        blackHole(accumulator.total)
    }

    Benchmark("Operator.receiveOn.immediate") { benchmark in
        let subject = PassthroughSubject<Int, Never>()
        let accumulator = Accumulator()
        let cancellable = subject
            .receive(on: ImmediateScheduler.shared)
            .sink { accumulator.add($0) }
        benchmark.measure(elements: Workload.values) {
            for value in 0..<Workload.values { subject.send(value) }
        }
        cancellable.cancel()
        blackHole(accumulator.total)
    }

    Benchmark("Operator.prefixUntilOutput") { benchmark in
        let subject = PassthroughSubject<Int, Never>()
        let trigger = PassthroughSubject<Void, Never>()
        let accumulator = Accumulator()
        let cancellable = subject
            .prefix(untilOutputFrom: trigger)
            .sink { accumulator.add($0) }
        benchmark.measure(elements: Workload.values) {
            for value in 0..<Workload.values { subject.send(value) }
        }
        cancellable.cancel()
        blackHole(accumulator.total)
    }
}
