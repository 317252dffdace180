import Dispatch
import Foundation
import Synchronization
import UVCombine

#if canImport(Glibc)
import Glibc
#endif

/// Runs the five seed scenarios one after another against the embedded
/// server. Each scenario gets a fresh `UVLoop` on the main thread, closed
/// (`uv_loop_close` == 0) when the scenario ends, and checks its own
/// outcome; the demo succeeds only if every scenario did.
struct DemoRunner {
    /// Multiplies every delay: 1 for the real demo, 0.1 with `--fast`.
    let timeScale: Double

    /// The longest a scenario may take before it is stopped and failed.
    static let watchdogSeconds = 60.0

    static let scenarios: [any DemoScenario] = [
        ConnectableScenario(),
        AutoconnectScenario(),
        StoppingAPipelineScenario(),
        DataTaskScenario(),
        TimerScenario(),
    ]

    func run() -> Bool {
        let server: DemoServer
        do {
            server = try DemoServer(routes: DemoRoutes.all(scale: timeScale))
        } catch {
            say("✗ could not start the embedded HTTP server: \(error)")
            return false
        }
        defer { server.shutdown() }
        say("Embedded HTTP server on http://127.0.0.1:\(server.port) (its own loop thread).")
        if timeScale != 1 { say("Delays scaled by \(timeScale) (--fast).") }

        let scenarios = Self.scenarios
        var failed: [String] = []
        for (index, scenario) in scenarios.enumerated() {
            say("\n== \(index + 1). \(scenario.title)")
            say("   (\(scenario.source))")
            let problems = runOne(scenario, server: server)
            server.observe(nil)
            if problems.isEmpty {
                say("   ✓ \(scenario.verdict)")
            } else {
                for problem in problems { say("   ✗ \(problem)") }
                failed.append("\(index + 1)")
            }
        }
        if failed.isEmpty {
            say("\nAll \(scenarios.count) scenarios behaved as the seeds describe.")
        } else {
            say("\n\(failed.count) of \(scenarios.count) scenarios failed: \(failed.joined(separator: ", ")).")
        }
        return failed.isEmpty
    }

    private func runOne(_ scenario: any DemoScenario, server: DemoServer) -> [String] {
        let loop: UVLoop
        do {
            loop = try UVLoop()
        } catch {
            return ["could not create a loop: \(error)"]
        }
        let log = DemoLog()
        server.observe { line in log("server ← \(line)") }
        let demo = DemoContext(loop: loop, scale: timeScale, log: log, server: server)
        // A scenario that never finishes is stopped and failed rather
        // than hanging the demo.
        let watchdog = DispatchWorkItem { [demo] in demo.expire() }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.watchdogSeconds, execute: watchdog)
        var problems = scenario.run(demo)
        watchdog.cancel()
        if demo.isExpired {
            problems.append("did not finish within \(Int(Self.watchdogSeconds)) s")
        }
        do {
            try loop.close()
        } catch {
            problems.append("the loop did not close: \(error)")
        }
        return problems
    }
}

/// One seed scenario: sets up the seed's pipelines on the context's loop,
/// runs it, and returns what went differently from what the seed says
/// (nothing, if it behaved).
protocol DemoScenario: Sendable {
    /// What it shows, printed as its heading.
    var title: String { get }
    /// Which seed it comes from.
    var source: String { get }
    /// Printed when every check passed.
    var verdict: String { get }
    func run(_ demo: DemoContext) -> [String]
}

/// What a scenario works with: its loop, the time scale, its log and the
/// embedded server.
final class DemoContext: Sendable {
    let loop: UVLoop
    let scale: Double
    let log: DemoLog
    let server: DemoServer
    private let expired = Atomic<Bool>(false)

    init(loop: UVLoop, scale: Double, log: DemoLog, server: DemoServer) {
        self.loop = loop
        self.scale = scale
        self.log = log
        self.server = server
    }

    /// `seconds` scaled for `--fast`.
    func seconds(_ seconds: Double) -> Double {
        seconds * scale
    }

    /// `seconds` scaled, for printing: `0.2`, `0.02`.
    func text(_ seconds: Double) -> String {
        String(format: "%g", self.seconds(seconds))
    }

    /// `seconds` (scaled) as a loop stride.
    func stride(_ seconds: Double) -> UVLoop.SchedulerTimeType.Stride {
        .seconds(self.seconds(seconds))
    }

    /// Runs `body` on the loop `seconds` (scaled) from now, as the seeds'
    /// `DispatchQueue.main.asyncAfter(deadline: .now() + seconds)`.
    func after(_ seconds: Double, _ body: @escaping () -> Void) {
        loop.schedule(after: loop.now.advanced(by: stride(seconds)), body)
    }

    /// Runs the loop until the work set up so far is done (or the
    /// watchdog expired).
    func run() {
        guard !isExpired else { return }
        loop.run()
    }

    var isExpired: Bool { expired.load(ordering: .acquiring) }

    /// The watchdog: stops the loop; later `run()` calls return at once.
    func expire() {
        expired.store(true, ordering: .releasing)
        loop.stop()
    }
}

/// Prints a scenario's lines with the seconds since it started. Any
/// thread (the server logs from its own).
final class DemoLog: Sendable {
    private let start = ContinuousClock.now

    /// Seconds since the scenario started.
    var elapsed: Double {
        let duration = ContinuousClock.now - start
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    func callAsFunction(_ line: String) {
        say("   [\(String(format: "%5.2f", elapsed))s] \(line)")
    }
}

/// Writes `line` and a newline to standard output in one write(2): lines
/// appear as they happen (also through a pipe) and lines from the server's
/// thread never interleave with the scenario's.
func say(_ line: String) {
    var bytes = Array((line + "\n").utf8)
    bytes.withUnsafeMutableBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = Glibc.write(1, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }
}

/// Values written on one thread and read on another (a subscriber on the
/// session's loop thread, the checks on the main thread).
final class Shared<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) {
        storage = Mutex(value)
    }

    var value: Value {
        storage.withLock { $0 }
    }

    func update(_ body: (inout Value) -> Void) {
        storage.withLock { body(&$0) }
    }
}
