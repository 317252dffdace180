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

    @Test func requestingNoneFromSubjectTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let subject = PassthroughSubject<Int, Never>()
            let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
            subject.subscribe(tracker)
            tracker.request(.none)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("Subscription.request(.none): demand must not be zero"))
    }

    @Test func requestingNoneFromSequenceTraps() async {
        await #expect(processExitsWith: .failure) {
            let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
            [1, 2].publisher.subscribe(tracker)
            tracker.request(.none)
        }
    }

    @Test func requestingNoneFromJustTraps() async {
        await #expect(processExitsWith: .failure) {
            let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
            Just(1).subscribe(tracker)
            tracker.request(.none)
        }
    }
}
