import Benchmark
import BenchmarkSupport

// The physical limit beside the libraries: the least work a workload needs,
// written by hand.
//
// Fan-out is N receivers in an array, each called for every value: one
// indirect call and one add per delivery, no locks, no demand. Receivers are
// C function pointers with a context pointer, as a C program (or libuv) keeps
// callbacks. `FanOut.swiftClosures` is the same loop over Swift closures,
// the obvious hand-written observer list: calling a closure stored in an
// array retains and releases its context on every call (measured with perf:
// about two thirds of its time), so it is slower than the limit and than a
// subject that avoids refcounting per value.

/// A callback as C keeps one: a function pointer and its context.
struct Receiver {
    let context: UnsafeMutableRawPointer
    let call: @convention(c) (UnsafeMutableRawPointer, Int) -> Void
}

/// The suite package-benchmark runs.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = Workload.configuration

    for n in Workload.fanOutWidths {
        let values = Workload.deliveries / n

        Benchmark("FanOut.lowerBound.N\(n)") { benchmark in
            let accumulator = Accumulator()
            let receivers = (0..<n).map { _ in
                Receiver(context: UnsafeMutableRawPointer(accumulator.storage)) { context, value in
                    context.assumingMemoryBound(to: Int.self).pointee &+= value
                }
            }
            benchmark.measure(elements: values * n) {
                for value in 0..<values {
                    for receiver in receivers { receiver.call(receiver.context, value) }
                }
            }
            blackHole(accumulator.total)
        }

        Benchmark("FanOut.swiftClosures.N\(n)") { benchmark in
            let accumulator = Accumulator()
            let receivers: [(Int) -> Void] = (0..<n).map { _ in { accumulator.add($0) } }
            benchmark.measure(elements: values * n) {
                for value in 0..<values {
                    for receive in receivers { receive(value) }
                }
            }
            blackHole(accumulator.total)
        }
    }
}
