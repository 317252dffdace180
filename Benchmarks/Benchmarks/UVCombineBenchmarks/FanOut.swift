import Benchmark
import BenchmarkSupport
import UVCombine

/// One `PassthroughSubject` fanned out to N sinks through each of Combine's
/// multicasting operators. `Workload.deliveries / N` values per iteration,
/// so every N delivers the same number of elements; reported per delivered
/// element (value × subscriber). The lower bound beside these is in
/// LowerBoundBenchmarks.
func registerFanOut() {
    for n in Workload.fanOutWidths {
        let values = Workload.deliveries / n

        Benchmark("FanOut.share.N\(n)") { benchmark in
            let subject = PassthroughSubject<Int, Never>()
            let shared = subject.share()
            let accumulator = Accumulator()
            let cancellables = (0..<n).map { _ in shared.sink { accumulator.add($0) } }
            benchmark.measure(elements: values * n) {
                for value in 0..<values { subject.send(value) }
            }
            for cancellable in cancellables { cancellable.cancel() }
            blackHole(accumulator.total)
        }

        Benchmark("FanOut.makeConnectable.N\(n)") { benchmark in
            let subject = PassthroughSubject<Int, Never>()
            let connectable = subject.makeConnectable()
            let accumulator = Accumulator()
            let cancellables = (0..<n).map { _ in connectable.sink { accumulator.add($0) } }
            let connection = connectable.connect()
            benchmark.measure(elements: values * n) {
                for value in 0..<values { subject.send(value) }
            }
            connection.cancel()
            for cancellable in cancellables { cancellable.cancel() }
            blackHole(accumulator.total)
        }

        Benchmark("FanOut.multicast.N\(n)") { benchmark in
            let subject = PassthroughSubject<Int, Never>()
            let multicast = subject.multicast(subject: PassthroughSubject<Int, Never>())
            let accumulator = Accumulator()
            let cancellables = (0..<n).map { _ in multicast.sink { accumulator.add($0) } }
            let connection = multicast.connect()
            benchmark.measure(elements: values * n) {
                for value in 0..<values { subject.send(value) }
            }
            connection.cancel()
            for cancellable in cancellables { cancellable.cancel() }
            blackHole(accumulator.total)
        }
    }
}
