import Testing
import UVCombineCore
import UVCombineTesting

/// Misuse traps where Combine traps, with a message naming the rule. Each
/// case runs in a child process (Swift Testing exit tests).
@Suite("Contract violations trap")
struct ContractViolationTests {
    @Test func negativeMaxDemandTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Subscribers.Demand.max(-1)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("Subscribers.Demand.max(-1): demand cannot be negative"))
    }

    // request(.none) on a subject's subscription is accepted, as in Combine
    // (Tests/UVCombineCoreTests/Subjects/SubjectRulesTests.swift).

    @Test func requestingNoneFromSequenceIsAccepted() {
        // Combine's Sequence subscription accepts `.none` (it adds nothing);
        // Just's, Optional's and Result's trap (ValuePublisherSubscriptionTests).
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        [1, 2].publisher.subscribe(tracker)
        tracker.request(.none)
        #expect(tracker.values.isEmpty)
    }

    @Test func requestingNoneFromJustTraps() async {
        await #expect(processExitsWith: .failure) {
            let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
            Just(1).subscribe(tracker)
            tracker.request(.none)
        }
    }
}
