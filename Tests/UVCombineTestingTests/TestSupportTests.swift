import Foundation
import Testing
import UVCombineCore
import UVCombineTesting

@Suite("Test support: TrackingSubscriber, TestPublisher, AllocationCounter")
struct TestSupportTests {
    @Test func trackingSubscriberRecordsEventsInOrder() {
        let tracker = TrackingSubscriber<Int, Never>()
        [1, 2].publisher.subscribe(tracker)
        #expect(tracker.history == ["subscription([1, 2])", "value(1)", "value(2)", "finished"])
        #expect(tracker.values == [1, 2])
        #expect(tracker.completion == .finished)
        #expect(tracker.completionCount == 1)
    }

    @Test func trackingSubscriberDrivesDemandByHand() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        [1, 2, 3].publisher.subscribe(tracker)
        #expect(tracker.values == [])
        tracker.request(.max(2))
        #expect(tracker.values == [1, 2])
        // The unfinished subscription and the subscriber hold each other
        // until a completion or a cancel (LeakSanitizer, `make asan`).
        tracker.cancel()
    }

    @Test func trackingSubscriberDemandPerValue() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: { $0 < 3 ? .max(1) : .none })
        [1, 2, 3, 4, 5].publisher.subscribe(tracker)
        #expect(tracker.values == [1, 2, 3])
        tracker.cancel()
    }

    @Test func testPublisherRecordsDemandAndCancellation() {
        let publisher = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(2))
        publisher.subscribe(tracker)
        tracker.request(.max(3))
        #expect(publisher.subscription?.requested == [.max(2), .max(3)])
        #expect(publisher.subscription?.totalDemand == .max(5))
        #expect(publisher.subscription?.isCancelled == false)
        tracker.cancel()
        #expect(publisher.subscription?.isCancelled == true)
        #expect(publisher.subscription?.cancelCount == 1)
    }

    @Test func testPublisherSendsRegardlessOfDemand() {
        let publisher = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none, demandPerValue: { _ in .max(7) })
        publisher.subscribe(tracker)
        #expect(publisher.send(1) == .max(7))
        publisher.send(completion: .finished)
        #expect(tracker.history == ["subscription(TestSubscription)", "value(1)", "finished"])
    }

    @Test(.enabled(if: AllocationCounter.isCounting, "the malloc interposer is compiled out under sanitizers"))
    func allocationCounterSeesAnAllocation() {
        final class Box { var x = 0 }
        var kept: [Box] = []
        kept.reserveCapacity(4)
        let mallocs = AllocationCounter.count { kept.append(Box()) }
        #expect(mallocs == 1)
        #expect(kept.count == 1)
    }

    @Test(.enabled(if: AllocationCounter.isCounting, "the malloc interposer is compiled out under sanitizers"))
    func allocationCounterSeesNothingForPureArithmetic() {
        var x = 0
        let mallocs = AllocationCounter.count { for i in 0..<1_000 { x &+= i } }
        #expect(mallocs == 0)
        #expect(x > 0)
    }

    @Test func allocationCounterCountsUnlessASanitizerOwnsMalloc() {
        // Plain builds count (the two tests above check the counts); the
        // sanitizer builds (`make asan`, `make tsan`, which set
        // UVC_SANITIZER) compile the interposer out and say so.
        let sanitized = ProcessInfo.processInfo.environment["UVC_SANITIZER"] != nil
        #expect(AllocationCounter.isCounting == !sanitized)
    }
}
