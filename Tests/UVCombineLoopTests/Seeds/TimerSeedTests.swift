import Foundation
import Testing
import UVCombineCore
import UVCombineLoop
import UVCombineLoopFoundation

/// "Understanding Combine", Timer Publisher chapter: the scenarios, with
/// the API map's one edit (`Timer.publish(every:on:in:)` becomes
/// `UVTimer.publish(every:on:)` with a loop in place of the run loop).
@Suite("Seed: Timer Publisher")
struct TimerSeedTests {
    /// The chapter's view controller, reduced to what the timer touches.
    final class ProgressViewController {
        let loop: UVLoop
        var timerCancellable = Set<AnyCancellable>()
        var fractionChecks = 0
        let afterCheck: (ProgressViewController) -> Void
        weak var lastPublisher: UVTimer.TimerPublisher?
        weak var lastPipeline: Subscribers.Sink<Date, Never>?

        init(loop: UVLoop, afterCheck: @escaping (ProgressViewController) -> Void) {
            self.loop = loop
            self.afterCheck = afterCheck
        }

        func checkFraction() {
            fractionChecks += 1
            afterCheck(self)
        }

        // The seed's makeTimer(), verbatim but for the publisher's spelling.
        func makeTimer() {
            self.timerCancellable.first?.cancel()
            let timerPublisher = UVTimer.publish(every: 0.5, on: loop)
            let timerPipeline =
                Subscribers.Sink<Date,Never>(receiveCompletion:{_ in}) {
                    [unowned self] _ in self.checkFraction()
                }
            timerPublisher.subscribe(timerPipeline)
            timerPublisher.connect()
                .store(in:&self.timerCancellable)
            lastPublisher = timerPublisher
            lastPipeline = timerPipeline
        }
    }

    @Test func makeTimerFiresUntilTheCancellablesAreRemoved() {
        withLoop { loop in
            let controller = ProgressViewController(loop: loop) { controller in
                if controller.fractionChecks == 2 {
                    // "If I need to cancel the timer manually, I can say
                    // self.timerCancellable.removeAll()."
                    controller.timerCancellable.removeAll()
                }
            }
            let start = loop.now
            controller.makeTimer()
            loop.run() // returns once the timer stopped
            #expect(controller.fractionChecks == 2)
            #expect(start.distance(to: loop.now) >= .seconds(1))
            #expect(controller.lastPublisher == nil)
            #expect(controller.lastPipeline == nil)
        }
    }

    @Test func theWholePipelineIsTornDownWithTheController() {
        weak var released: ProgressViewController?
        withLoop { loop in
            var controller: ProgressViewController? = ProgressViewController(loop: loop) { _ in }
            released = controller
            controller?.makeTimer()
            weak let publisher = controller?.lastPublisher
            weak let pipeline = controller?.lastPipeline
            // "…when my view controller goes out of existence."
            loop.schedule(after: loop.now.advanced(by: .milliseconds(1_200))) { controller = nil }
            loop.run() // returns once the timer stopped
            #expect(released == nil)
            #expect(publisher == nil)
            #expect(pipeline == nil)
        }
    }

    @Test func makeTimerAgainReplacesTheRunningTimer() {
        withLoop { loop in
            let controller = ProgressViewController(loop: loop) { controller in
                if controller.fractionChecks == 1 {
                    controller.makeTimer() // cancels the first timer, starts a new one
                } else if controller.fractionChecks == 3 {
                    controller.timerCancellable.removeAll()
                }
            }
            let start = loop.now
            controller.makeTimer()
            loop.run()
            #expect(controller.fractionChecks == 3)
            // One tick of the first timer, then two of the second, which
            // started at the first tick: 0.5 s + 2 × 0.5 s.
            #expect(start.distance(to: loop.now) >= .milliseconds(1_500))
        }
    }
}
