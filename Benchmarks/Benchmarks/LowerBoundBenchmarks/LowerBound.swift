import Benchmark
import BenchmarkSupport

// The physical limit beside the libraries: the least work a workload needs,
// written by hand. Fan-out is N receivers (closures in an array, as a subject
// keeps its subscribers) called in a loop for every value: one indirect call
// per delivery, no locks, no demand.

/// The suite package-benchmark runs.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = Workload.configuration

    for n in Workload.fanOutWidths {
        Benchmark("FanOut.lowerBound.N\(n)") { benchmark in
            let accumulator = Accumulator()
            let receivers: [(Int) -> Void] = (0..<n).map { _ in { accumulator.add($0) } }
            let values = Workload.deliveries / n
            benchmark.measure(elements: values * n) {
                for value in 0..<values {
                    for receive in receivers { receive(value) }
                }
            }
            blackHole(accumulator.total)
        }
    }
}
