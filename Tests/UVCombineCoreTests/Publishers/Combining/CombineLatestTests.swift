import Dispatch
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineTesting

@Suite("CombineLatest")
struct CombineLatestTests {
    @Test func emitsOnceEveryInputHasAValue() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        let tracker = TrackingSubscriber<(Int, String), TestError>()
        a.combineLatest(b).subscribe(tracker)
        a.send(1)
        a.send(2)
        #expect(tracker.values.isEmpty)
        b.send("x")
        a.send(3)
        b.send("y")
        #expect(tracker.values.map { "\($0.0)\($0.1)" } == ["2x", "3x", "3y"])
        #expect(tracker.subscriptionNames == ["CombineLatest"])
    }

    @Test func transformVariants() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let c = PassthroughSubject<Int, Never>()
        let d = PassthroughSubject<Int, Never>()
        var two: [Int] = [], three: [Int] = [], four: [Int] = []
        let c2 = a.combineLatest(b) { $0 * $1 }.sink { two.append($0) }
        let c3 = a.combineLatest(b, c) { $0 + $1 + $2 }.sink { three.append($0) }
        let c4 = a.combineLatest(b, c, d) { $0 + $1 + $2 + $3 }.sink { four.append($0) }
        a.send(2)
        b.send(3)
        c.send(10)
        d.send(100)
        a.send(4)
        #expect(two == [6, 12])
        #expect(three == [15, 17])
        #expect(four == [115, 117])
        _ = (c2, c3, c4)
    }

    @Test func threeAndFourInputsPublishTuples() {
        let tracker3 = TrackingSubscriber<(Int, Int, Int), Never>()
        Publishers.CombineLatest3(Just(1), Just(2), [3, 4].publisher).subscribe(tracker3)
        #expect(tracker3.values.map { [$0.0, $0.1, $0.2] } == [[1, 2, 3], [1, 2, 4]])
        #expect(tracker3.completion == .finished)
        let tracker4 = TrackingSubscriber<(Int, Int, Int, Int), Never>()
        Just(1).combineLatest(Just(2), Just(3), Just(4)).subscribe(tracker4)
        #expect(tracker4.values.map { [$0.0, $0.1, $0.2, $0.3] } == [[1, 2, 3, 4]])
        #expect(tracker4.completion == .finished)
        #expect(Publishers.CombineLatest(Just(1), Just(2)) == Publishers.CombineLatest(Just(1), Just(2)))
    }

    // MARK: Completion

    @Test func finishesWhenEveryInputHasFinished() {
        let a = TestPublisher<Int, Never>()
        let b = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<(Int, Int), Never>()
        a.combineLatest(b).subscribe(tracker)
        a.send(1)
        a.send(completion: .finished)
        b.send(10)
        b.send(11)
        #expect(tracker.completion == nil)
        b.send(completion: .finished)
        #expect(tracker.values.map { [$0.0, $0.1] } == [[1, 10], [1, 11]])
        #expect(tracker.completion == .finished)
        #expect(a.subscription?.isCancelled == false)
    }

    @Test func anInputFinishingWithoutAValueStillWaitsForTheOthers() {
        let a = TestPublisher<Int, Never>()
        let b = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<(Int, Int), Never>()
        a.combineLatest(b).subscribe(tracker)
        a.send(completion: .finished)
        b.send(1)
        #expect(tracker.history == ["subscription(CombineLatest)"])
        b.send(completion: .finished)
        #expect(tracker.history == ["subscription(CombineLatest)", "finished"])
    }

    @Test func failureFromAnyInputFailsAndCancelsTheOthers() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<Int, TestError>()
        let c = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<(Int, Int, Int), TestError>()
        a.combineLatest(b, c).subscribe(tracker)
        a.send(1)
        b.send(completion: .failure(.boom))
        #expect(tracker.completion == .failure(.boom))
        #expect(a.subscription?.isCancelled == true)
        #expect(b.subscription?.isCancelled == false)
        #expect(c.subscription?.isCancelled == true)
        c.send(3)
        a.send(completion: .failure(.other))
        #expect(tracker.completionCount == 1)
        #expect(tracker.values.isEmpty)
    }

    // MARK: Demand

    @Test func requestsGoToEveryInputAndOutputsNeverExceedDemand() {
        let a = TestPublisher<Int, Never>()
        let b = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<(Int, Int), Never>(initialDemand: .max(2))
        a.combineLatest(b).subscribe(tracker)
        #expect(a.subscription?.requested == [.max(2)])
        #expect(b.subscription?.requested == [.max(2)])
        a.send(1)
        b.send(10) // (1, 10)
        a.send(2) // (2, 10)
        b.send(20) // no demand: only the latest value changes
        a.send(3)
        #expect(tracker.values.map { [$0.0, $0.1] } == [[1, 10], [2, 10]])
        tracker.request(.max(1))
        #expect(a.subscription?.requested == [.max(2), .max(1)])
        #expect(b.subscription?.requested == [.max(2), .max(1)])
        // New demand alone publishes nothing; the next value does, with the
        // latest of each input.
        #expect(tracker.values.count == 2)
        b.send(30)
        #expect(tracker.values.map { [$0.0, $0.1] } == [[1, 10], [2, 10], [3, 30]])
    }

    @Test func demandReturnedFromReceiveReachesEveryInput() {
        let a = TestPublisher<Int, Never>()
        let b = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<(Int, Int), Never>(initialDemand: .max(1), demandPerValue: { _ in .max(1) })
        a.combineLatest(b).subscribe(tracker)
        a.send(1)
        // The input whose value produced the output gets the new demand as
        // the answer; the other is asked.
        #expect(b.send(10) == .max(1))
        #expect(a.subscription?.requested == [.max(1), .max(1)])
        #expect(b.subscription?.requested == [.max(1)])
        a.send(2)
        #expect(tracker.values.map { [$0.0, $0.1] } == [[1, 10], [2, 10]])
        #expect(b.subscription?.requested == [.max(1), .max(1)])
    }

    @Test func oneValuePerRequestFromSequences() {
        let tracker = TrackingSubscriber<(Int, Int), Never>(initialDemand: .none)
        Just(0).combineLatest([1, 2, 3].publisher).subscribe(tracker)
        for n in 1...3 {
            tracker.request(.max(1))
            #expect(tracker.values.count == n)
        }
        #expect(tracker.values.map(\.1) == [1, 2, 3])
        #expect(tracker.completion == .finished)
    }

    @Test func demandRequestedBeforeInputsSubscribeReachesThem() {
        let a = TestPublisher<Int, Never>()
        let b = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<(Int, Int), Never>(initialDemand: .max(3))
        a.combineLatest(b).subscribe(tracker)
        #expect(a.subscription?.requested == [.max(3)])
        tracker.request(.unlimited)
        #expect(a.subscription?.requested == [.max(3), .unlimited])
    }

    @Test func anInputSubscribingLateGetsTheDemandSoFar() {
        let scheduler = DispatchQueue.test
        let a = TestPublisher<Int, Never>()
        let b = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<(Int, Int), Never>(initialDemand: .max(2))
        a.combineLatest(b.subscribe(on: scheduler)).subscribe(tracker)
        tracker.request(.max(1))
        #expect(a.subscription?.requested == [.max(2), .max(1)])
        scheduler.advance()
        #expect(b.subscription?.requested == [.max(3)])
    }

    // MARK: Cancellation

    @Test func cancelReachesEveryInput() {
        let a = TestPublisher<Int, Never>()
        let b = TestPublisher<Int, Never>()
        let c = TestPublisher<Int, Never>()
        let d = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<(Int, Int, Int, Int), Never>()
        a.combineLatest(b, c, d).subscribe(tracker)
        tracker.cancel()
        #expect([a, b, c, d].allSatisfy { $0.subscription?.cancelCount == 1 })
        for input in [a, b, c, d] { input.send(1) }
        #expect(tracker.values.isEmpty)
    }

    @Test func everythingDeinitialisesAfterCancel() {
        weak var weakA: PassthroughSubject<Int, Never>?
        weak var weakInner: AnyObject?
        do {
            let a = PassthroughSubject<Int, Never>()
            let b = PassthroughSubject<Int, Never>()
            let catcher = SubscriptionCatcher<(Int, Int), Never>()
            a.combineLatest(b).subscribe(catcher)
            a.send(1)
            b.send(2)
            #expect(catcher.values.count == 1)
            weakA = a
            weakInner = catcher.subscriptionObject
            catcher.cancel()
        }
        #expect(weakA == nil)
        #expect(weakInner == nil)
    }

    @Test func innerDeinitialisesAfterFailureWhileInputsLive() {
        let a = PassthroughSubject<Int, TestError>()
        let b = PassthroughSubject<Int, TestError>()
        weak var weakInner: AnyObject?
        do {
            let catcher = SubscriptionCatcher<(Int, Int), TestError>()
            a.combineLatest(b).subscribe(catcher)
            weakInner = catcher.subscriptionObject
            b.send(completion: .failure(.boom))
        }
        #expect(weakInner == nil)
    }

    // MARK: Re-entrancy and threads

    @Test func requestFromInsideReceiveReachesTheInputsAfterTheDelivery() {
        let a = TestPublisher<Int, Never>()
        let b = TestPublisher<Int, Never>()
        let subscriber = DepthRecordingSubscriber<(Int, Int), Never>(requestInside: .max(1))
        a.combineLatest(b).subscribe(subscriber)
        subscriber.request(.max(1))
        a.send(1)
        b.send(2)
        #expect(subscriber.depths == [1])
        #expect(a.subscription?.requested == [.max(1), .max(1)])
        #expect(b.subscription?.requested == [.max(1), .max(1)])
    }

    @Test(.timeLimit(.minutes(1)))
    func concurrentInputsDeliverOneAtATime() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let subscriber = SerialCheckingSubscriber<(Int, Int), Never>()
        a.combineLatest(b).subscribe(subscriber)
        a.send(0)
        b.send(0)
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            let subject = thread == 0 ? a : b
            for i in 0..<5_000 { subject.send(i) }
        }
        a.send(completion: .finished)
        b.send(completion: .finished)
        #expect(subscriber.values == 10_001)
        #expect(subscriber.completions == 1)
        #expect(subscriber.overlaps == 0)
    }
}
