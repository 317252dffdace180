import Dispatch
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineTesting

@Suite("Marble diagrams")
struct MarbleTests {
    @Test func identityReproducesTheInput() {
        let scheduler = DispatchQueue.test
        #expect(scheduler.marbles("a-b--c---|", tick: .seconds(1)) { $0 } == "a-b--c---|")
    }

    @Test func failureIsAHash() {
        let scheduler = DispatchQueue.test
        #expect(scheduler.marbles("ab-#", tick: .seconds(1)) { $0 } == "ab-#")
    }

    @Test func groupsPutSeveralEventsInOneTick() {
        let scheduler = DispatchQueue.test
        #expect(scheduler.marbles("a(bc)-(d|)", tick: .seconds(1)) { $0 } == "a(bc)-(d|)")
    }

    @Test func outputStopsAtTheCompletion() {
        let scheduler = DispatchQueue.test
        #expect(scheduler.marbles("a|---", tick: .seconds(1)) { $0 } == "a|")
    }

    @Test func withoutCompletionTheOutputRunsForAllTicks() {
        let scheduler = DispatchQueue.test
        #expect(scheduler.marbles("a-b", tick: .seconds(1), ticks: 6) { $0 } == "a-b---")
    }

    @Test func withoutTicksTheRunGoesOnUntilTheOutputCompletes() {
        let scheduler = DispatchQueue.test
        #expect(scheduler.marbles("a|", tick: .seconds(1)) { $0.delay(for: .seconds(4), scheduler: scheduler) }
            == "----a|")
    }

    @Test func withoutCompletionTheOutputCoversTheInputAndTheLastEvent() {
        let scheduler = DispatchQueue.test
        #expect(scheduler.marbles("a---", tick: .seconds(1)) { $0 } == "a---")
        let late = DispatchQueue.test
        #expect(late.marbles("a", tick: .seconds(1)) { $0.delay(for: .seconds(2), scheduler: late) } == "--a")
    }

    @Test func multiCharacterValuesAreShownWhole() {
        let scheduler = DispatchQueue.test
        #expect(scheduler.marbles("ab-|", tick: .seconds(1)) { $0.map { $0 + $0 } } == "aabb-|")
    }

    @Test func everyTickAdvancesTheClockByOneTick() {
        let scheduler = DispatchQueue.test
        let start = scheduler.now
        _ = scheduler.marbles("a---", tick: .milliseconds(250), ticks: 4) { $0 }
        #expect(start.distance(to: scheduler.now) == .milliseconds(750))
    }

    @Test func workScheduledForTheSameInstantLandsInTheSameTick() {
        let scheduler = DispatchQueue.test
        #expect(scheduler.marbles("a-b-|", tick: .seconds(1)) { $0.receive(on: scheduler) } == "a-b-|")
    }

    @Test func theSubscriptionIsCancelledAtTheEnd() {
        let scheduler = DispatchQueue.test
        // The timeout's clock is a repeating action; the run returns after
        // the last tick and cancelling the subscription removes the clock.
        let out = scheduler.marbles("a--", tick: .seconds(1), ticks: 3) { $0.timeout(.seconds(10), scheduler: scheduler) }
        #expect(out == "a--")
        #expect(scheduler.pendingActionCount == 0)
    }
}
