import Foundation
import Testing
import UVCombineCore
import UVCombineLoop
import UVCombineLoopFoundation

/// "Understanding Combine", Timer Publisher chapter: the pipeline that
/// prints the time elapsed between firings, with the API map's one edit.
@Suite("Seed: Timer Publisher intervals")
struct TimerScanSeedTests {
    final class Holder {
        var storage = Set<AnyCancellable>()
        var intervals: [TimeInterval] = []
    }

    @Test func scanPipelinePrintsTheIntervalBetweenFirings() {
        withLoop { loop in
            let holder = Holder()
            // The seed uses every: 1; a tenth of that keeps the test short.
            UVTimer.publish(every: 0.1, on: loop)
                .autoconnect()
                .scan((prev:Date.distantPast, now:Date())) { (prev:$0.now, now:$1) }
                .map { $0.now.timeIntervalSince($0.prev) }
                .sink { print($0); holder.intervals.append($0); if holder.intervals.count == 5 { holder.storage.removeAll() } }
                .store(in: &holder.storage)
            loop.run() // returns once the last subscriber left and the timer stopped
            let intervals = holder.intervals
            #expect(intervals.count == 5)
            // Each firing sits on the grid (connect + k × 0.1 s), so the gaps
            // average the period; one gap alone moves with each firing's
            // latency.
            for interval in intervals { #expect(interval > 0.05 && interval < 0.3) }
            let mean = intervals.dropFirst().reduce(0, +) / Double(intervals.count - 1)
            #expect(abs(mean - 0.1) < 0.01)
        }
    }
}
