import UVCombine

/// Runs the seed scenarios one after another, each on a fresh `UVLoop`
/// that is closed (`uv_loop_close` == 0) when the scenario ends.
struct DemoRunner {
    /// Multiplies every delay: 1 for the real demo, 0.1 with `--fast`.
    let timeScale: Double

    func run() -> Bool {
        let scenarios: [DemoScenario] = [
            TimerSeedScenario(),
            TimerIntervalsScenario(),
            StoppingAPipelineScenario(),
            ConnectableScenario(),
        ]
        var failed: [String] = []
        for scenario in scenarios {
            print("\n== \(scenario.title)")
            do {
                let loop = try UVLoop()
                let log = DemoLog(loop: loop)
                let problems = scenario.run(on: loop, scale: timeScale, log: log)
                try loop.close()
                if problems.isEmpty {
                    print("   ✓ \(scenario.title)")
                } else {
                    for problem in problems { print("   ✗ \(problem)") }
                    failed.append(scenario.title)
                }
            } catch {
                print("   ✗ \(error)")
                failed.append(scenario.title)
            }
        }
        print(failed.isEmpty ? "\nAll \(scenarios.count) scenarios behaved as the seeds describe."
                             : "\n\(failed.count) of \(scenarios.count) scenarios failed: \(failed.joined(separator: ", "))")
        return failed.isEmpty
    }
}

/// One seed scenario. `run` sets up its pipelines, runs the loop until
/// nothing is left to do, and returns what went wrong (nothing, if it
/// behaved as the seed describes).
protocol DemoScenario {
    var title: String { get }
    func run(on loop: UVLoop, scale: Double, log: DemoLog) -> [String]
}

/// Prints lines with the time since the scenario started.
final class DemoLog {
    private let loop: UVLoop
    private let start: UVLoop.SchedulerTimeType

    init(loop: UVLoop) {
        self.loop = loop
        start = loop.now
    }

    /// Seconds since the scenario started.
    var elapsed: Double {
        Double(start.distance(to: loop.now).nanoseconds) / 1e9
    }

    func callAsFunction(_ line: String) {
        let seconds = (elapsed * 100).rounded() / 100
        print("   [\(seconds)s] \(line)")
    }
}

extension UVLoop {
    /// Runs `body` after `seconds` of loop time.
    func after(_ seconds: Double, _ body: @escaping () -> Void) {
        schedule(after: now.advanced(by: .nanoseconds(Int(seconds * 1e9))), body)
    }
}
