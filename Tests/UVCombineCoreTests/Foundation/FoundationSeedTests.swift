import Foundation
import Synchronization
import Testing
import UVCombineCore
import UVCombineFoundation

// The seeds' Foundation-side code, verbatim: in the seeds it is preceded by
// `import Combine` (here the module under test is imported instead). The
// seeds print; this file's `print` records what they print.

private let seedLog = Mutex<[String]>([])

private func print(_ value: Any) {
    let line = "\(value)"
    seedLog.withLock { $0.append(line) }
}

/// UIKit's notification name, which seed 002 observes (UIKit is not on Linux).
private enum UIWindowScene {
    static let didEnterBackgroundNotification = Notification.Name("UIWindowSceneDidEnterBackgroundNotification")
}

/// Seed 002 ("Stopping a Pipeline"): the view controller's notification pipeline.
private final class BackgroundViewController {
    var storage = Set<AnyCancellable>()

    func viewDidLoad() {
        NotificationCenter.default.publisher(
            for: UIWindowScene.didEnterBackgroundNotification)
            .sink { _ in
                print("we're going into the background!")
            }
            .store(in:&self.storage)
    }
}

/// Seed 004 ("Timer Publisher"): `makeTimer()` and the interval pipeline.
private final class ProgressViewController {
    var timerCancellable = Set<AnyCancellable>()
    var storage = Set<AnyCancellable>()
    var fractionChecks = 0

    func checkFraction() {
        fractionChecks += 1
    }

    func makeTimer() {
        self.timerCancellable.first?.cancel()
        let timerPublisher = Timer.publish(every: 0.5, on: .main, in: .common)
        let timerPipeline =
            Subscribers.Sink<Date,Never>(receiveCompletion:{_ in}) {
                [unowned self] _ in self.checkFraction()
            }
        timerPublisher.subscribe(timerPipeline)
        timerPublisher.connect()
            .store(in:&self.timerCancellable)
    }

    func measureIntervals() {
        Timer.publish(every: 1, on: .main, in: .default)
            .autoconnect()
            .scan((prev:Date.distantPast, now:Date())) { (prev:$0.now, now:$1) }
            .map { $0.now.timeIntervalSince($0.prev) }
            .sink { print($0) }
            .store(in: &storage)
    }
}

private func loggedLines(where predicate: (String) -> Bool) -> [String] {
    seedLog.withLock { $0.filter(predicate) }
}

/// The test runner has no usable main run loop on Linux: its main thread
/// has gone into `dispatch_main()`, and `RunLoop.run` always runs the
/// calling thread's loop. So in this file (this declaration shadows
/// Foundation's), the seeds' `.main` is the run loop of the thread that
/// runs the test, which the test drives as an app's main thread would.
extension RunLoop {
    fileprivate static var main: RunLoop { RunLoop.current }
}

/// Runs the (test thread's) run loop until `done()` or `limit`.
private func runMainLoop(limit: TimeInterval, until done: () -> Bool) {
    let deadline = Date() + limit
    while !done(), Date() < deadline {
        _ = RunLoop.main.run(mode: .default, before: min(deadline, Date() + 0.01))
    }
}

@Suite("Seeds on Foundation's side", .serialized)
struct FoundationSeedTests {
    @Test func seed002NotificationPipelineStopsWithItsStorage() {
        let message = "we're going into the background!"
        var controller: BackgroundViewController? = BackgroundViewController()
        controller?.viewDidLoad()
        NotificationCenter.default.post(name: UIWindowScene.didEnterBackgroundNotification, object: nil)
        #expect(loggedLines { $0 == message }.count == 1)
        controller?.storage.first?.cancel()
        NotificationCenter.default.post(name: UIWindowScene.didEnterBackgroundNotification, object: nil)
        #expect(loggedLines { $0 == message }.count == 1)
        controller?.viewDidLoad()
        NotificationCenter.default.post(name: UIWindowScene.didEnterBackgroundNotification, object: nil)
        #expect(loggedLines { $0 == message }.count == 2)
        controller = nil // its storage goes, and with it the pipeline
        NotificationCenter.default.post(name: UIWindowScene.didEnterBackgroundNotification, object: nil)
        #expect(loggedLines { $0 == message }.count == 2)
    }

    @Test func seed004MakeTimerFiresOnTheRunLoopAndRestarts() {
        #expect(RunLoop.main === RunLoop.current)
        let controller = ProgressViewController()
        controller.makeTimer()
        runMainLoop(limit: 3) { controller.fractionChecks >= 1 }
        #expect(controller.fractionChecks == 1)
        controller.makeTimer() // cancels the first connection, starts another
        runMainLoop(limit: 3) { controller.fractionChecks >= 2 }
        #expect(controller.fractionChecks == 2)
        controller.timerCancellable.removeAll()
        runMainLoop(limit: 0.6) { false }
        #expect(controller.fractionChecks == 2)
    }

    @Test func seed004ScanPipelineMeasuresOneSecondIntervals() throws {
        let controller = ProgressViewController()
        let before = seedLog.withLock { $0.count }
        controller.measureIntervals()
        let intervals = { seedLog.withLock { Array($0.dropFirst(before)) }.compactMap(Double.init) }
        runMainLoop(limit: 4) { intervals().count >= 2 }
        controller.storage.removeAll()
        let measured = intervals()
        try #require(measured.count >= 2)
        // The first is measured from the scan's seed date (made when the
        // pipeline was built), the next from the first firing.
        #expect(measured[0] >= 0.999 && measured[0] < 1.25)
        #expect(abs(measured[1] - 1) < 0.25)
    }
}
