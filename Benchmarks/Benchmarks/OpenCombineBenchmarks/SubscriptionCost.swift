import Benchmark
import BenchmarkSupport
import OpenCombine

/// Building a pipeline, subscribing (receiving its value, if it has one) and
/// cancelling it, `Workload.pipelines` times per iteration; reported per
/// pipeline.
func registerSubscriptionCost() {
    Benchmark("Subscribe.just.map.sink.cancel") { benchmark in
        let accumulator = Accumulator()
        benchmark.measure(elements: Workload.pipelines) {
            for _ in 0..<Workload.pipelines {
                let cancellable = Just(1).map { $0 &+ 1 }.sink { accumulator.add($0) }
                cancellable.cancel()
            }
        }
        blackHole(accumulator.total)
    }

    Benchmark("Subscribe.subject.share.sink.cancel") { benchmark in
        let subject = PassthroughSubject<Int, Never>()
        let accumulator = Accumulator()
        benchmark.measure(elements: Workload.pipelines) {
            for _ in 0..<Workload.pipelines {
                let cancellable = subject.share().sink { accumulator.add($0) }
                cancellable.cancel()
            }
        }
        blackHole(accumulator.total)
    }
}
