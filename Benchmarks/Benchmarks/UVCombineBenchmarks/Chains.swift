import Benchmark
import BenchmarkSupport
import UVCombine

/// Values through a chain into one sink, `Workload.values` per iteration;
/// reported per value. Only the sending loop is measured, except for the
/// sequence, whose values flow while subscribing.
func registerChains() {
    Benchmark("Chain.subject.sink") { benchmark in
        let subject = PassthroughSubject<Int, Never>()
        let accumulator = Accumulator()
        let cancellable = subject.sink { accumulator.add($0) }
        benchmark.measure(elements: Workload.values) {
            for value in 0..<Workload.values { subject.send(value) }
        }
        cancellable.cancel()
        blackHole(accumulator.total)
    }

    Benchmark("Chain.subject.map.filter.map.sink") { benchmark in
        let subject = PassthroughSubject<Int, Never>()
        let accumulator = Accumulator()
        let cancellable = subject
            .map { $0 &+ 1 }
            .filter { $0 & 1 == 0 }
            .map { $0 &* 3 }
            .sink { accumulator.add($0) }
        benchmark.measure(elements: Workload.values) {
            for value in 0..<Workload.values { subject.send(value) }
        }
        cancellable.cancel()
        blackHole(accumulator.total)
    }

    Benchmark("Chain.sequence.map.sink") { benchmark in
        let accumulator = Accumulator()
        benchmark.measure(elements: Workload.values) {
            let cancellable = (0..<Workload.values).publisher
                .map { $0 &* 2 }
                .sink { accumulator.add($0) }
            cancellable.cancel()
        }
        blackHole(accumulator.total)
    }
}
