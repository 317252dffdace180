import Benchmark
import BenchmarkSupport
import OpenCombine

/// An observable object with one `@Published` property.
final class PublishedModel: ObservableObject {
    @Published var value = 0
}

/// `@Published` and `ObservableObject`: property changes fanned out to N
/// `$value` sinks (`Workload.deliveries / N` changes per iteration,
/// reported per delivered element), and changes observed through the
/// synthesised `objectWillChange` (reported per change). Only the changes
/// are measured.
func registerPublished() {
    for n in Workload.fanOutWidths {
        let values = Workload.deliveries / n

        Benchmark("Published.sink.N\(n)") { benchmark in
            let model = PublishedModel()
            let accumulator = Accumulator()
            let cancellables = (0..<n).map { _ in model.$value.sink { accumulator.add($0) } }
            benchmark.measure(elements: values * n) {
                for value in 0..<values { model.value = value }
            }
            for cancellable in cancellables { cancellable.cancel() }
            blackHole(accumulator.total)
        }
    }

    Benchmark("Published.objectWillChange") { benchmark in
        let model = PublishedModel()
        let accumulator = Accumulator()
        let cancellable = model.objectWillChange.sink { accumulator.add(1) }
        benchmark.measure(elements: Workload.values) {
            for value in 0..<Workload.values { model.value = value }
        }
        cancellable.cancel()
        blackHole(accumulator.total)
    }
}
