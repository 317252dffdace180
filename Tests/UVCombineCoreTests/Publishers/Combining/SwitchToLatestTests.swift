import Dispatch
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineTesting

@Suite("SwitchToLatest")
struct SwitchToLatestTests {
    typealias Inner = TestPublisher<Int, TestError>

    @Test func switchesToTheLatestAndCancelsThePrevious() {
        let outer = TestPublisher<Inner, TestError>()
        let first = Inner()
        let second = Inner()
        let tracker = TrackingSubscriber<Int, TestError>()
        outer.switchToLatest().subscribe(tracker)
        #expect(outer.subscription?.requested == [.unlimited])
        outer.send(first)
        first.send(1)
        outer.send(second)
        #expect(first.subscription?.isCancelled == true)
        first.send(2)
        second.send(3)
        #expect(tracker.history == ["subscription(SwitchToLatest)", "value(1)", "value(3)"])
    }

    @Test func overloadsForEveryFailureCombination() {
        let same: Publishers.SwitchToLatest<Inner, TestPublisher<Inner, TestError>> =
            TestPublisher<Inner, TestError>().switchToLatest()
        let neverOuter: Publishers.SwitchToLatest<Inner, Publishers.SetFailureType<Just<Inner>, TestError>> =
            Just(Inner()).switchToLatest()
        let neverBoth: Publishers.SwitchToLatest<Just<Int>, Publishers.Sequence<[Just<Int>], Never>> =
            [Just(1), Just(2)].publisher.switchToLatest()
        let neverInner: Publishers.SwitchToLatest<
            Publishers.SetFailureType<Just<Int>, TestError>,
            Publishers.Map<PassthroughSubject<Just<Int>, TestError>, Publishers.SetFailureType<Just<Int>, TestError>>
        > = PassthroughSubject<Just<Int>, TestError>().switchToLatest()
        let tracker = TrackingSubscriber<Int, Never>()
        neverBoth.subscribe(tracker)
        #expect(tracker.history == ["subscription(SwitchToLatest)", "value(1)", "value(2)", "finished"])
        let failing = TrackingSubscriber<Int, TestError>()
        Just(Fail<Int, TestError>(error: .boom)).switchToLatest().subscribe(failing)
        #expect(failing.history == ["subscription(SwitchToLatest)", "failure(boom)"])
        _ = (same, neverOuter, neverInner)
    }

    // MARK: Demand

    @Test func outstandingDemandCarriesToTheNextInnerPublisher() {
        let outer = TestPublisher<Inner, TestError>()
        let first = Inner()
        let second = Inner()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .max(3))
        outer.switchToLatest().subscribe(tracker)
        outer.send(first)
        #expect(first.subscription?.requested == [.max(3)])
        first.send(1)
        tracker.request(.max(2))
        #expect(first.subscription?.requested == [.max(3), .max(2)])
        outer.send(second)
        #expect(second.subscription?.requested == [.max(4)])
    }

    @Test func neverDeliversMoreThanRequested() {
        let outer = TestPublisher<Inner, TestError>()
        let inner = Inner()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .max(1))
        outer.switchToLatest().subscribe(tracker)
        outer.send(inner)
        inner.send(1)
        // A value beyond the demand traps (see SwitchToLatestCompatTests).
        tracker.request(.max(1))
        inner.send(3)
        #expect(tracker.values == [1, 3])
        #expect(inner.subscription?.requested == [.max(1), .max(1)])
    }

    @Test func oneValuePerRequestAcrossInnerPublishers() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        [[1, 2].publisher, [3].publisher].publisher.switchToLatest().subscribe(tracker)
        // The second sequence replaces the first at once (the upstream is
        // asked for everything), so only its values arrive.
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(SwitchToLatest)", "value(3)", "finished"])
    }

    @Test func demandReturnedDuringAReplacementGoesToTheNewInnerPublisher() {
        let outer = PassthroughSubject<Inner, TestError>()
        let first = Inner()
        let second = Inner()
        let subscriber = SwitchingSubscriber(outer: outer, next: second)
        outer.switchToLatest().subscribe(subscriber)
        outer.send(first)
        #expect(first.subscription?.requested == [.max(1)])
        first.send(1) // the subscriber switches to `second` and asks for one more
        #expect(second.subscription?.requested == [.max(1)])
        #expect(first.subscription?.isCancelled == true)
        second.send(2)
        #expect(subscriber.received == [1, 2])
    }

    // MARK: Completion

    @Test func finishesWhenTheUpstreamAndTheCurrentInnerHaveFinished() {
        let outer = TestPublisher<Inner, TestError>()
        let inner = Inner()
        let tracker = TrackingSubscriber<Int, TestError>()
        outer.switchToLatest().subscribe(tracker)
        outer.send(inner)
        outer.send(completion: .finished)
        inner.send(1)
        #expect(tracker.completion == nil)
        inner.send(completion: .finished)
        #expect(tracker.history == ["subscription(SwitchToLatest)", "value(1)", "finished"])
    }

    @Test func anInnerFinishingFirstWaitsForTheUpstream() {
        let outer = TestPublisher<Inner, TestError>()
        let inner = Inner()
        let tracker = TrackingSubscriber<Int, TestError>()
        outer.switchToLatest().subscribe(tracker)
        outer.send(inner)
        inner.send(completion: .finished)
        #expect(tracker.completion == nil)
        outer.send(completion: .finished)
        #expect(tracker.completion == .finished)
    }

    @Test func upstreamFinishingWithoutInnerFinishesAtOnce() {
        let tracker = TrackingSubscriber<Int, Never>()
        Empty<Just<Int>, Never>().switchToLatest().subscribe(tracker)
        #expect(tracker.history == ["subscription(SwitchToLatest)", "finished"])
    }

    @Test func innerFailureCancelsTheUpstream() {
        let outer = TestPublisher<Inner, TestError>()
        let inner = Inner()
        let tracker = TrackingSubscriber<Int, TestError>()
        outer.switchToLatest().subscribe(tracker)
        outer.send(inner)
        inner.send(completion: .failure(.boom))
        #expect(tracker.completion == .failure(.boom))
        #expect(outer.subscription?.isCancelled == true)
        outer.send(Inner())
        #expect(tracker.completionCount == 1)
    }

    @Test func upstreamFailureCancelsTheInner() {
        let outer = TestPublisher<Inner, TestError>()
        let inner = Inner()
        let tracker = TrackingSubscriber<Int, TestError>()
        outer.switchToLatest().subscribe(tracker)
        outer.send(inner)
        outer.send(completion: .failure(.other))
        #expect(tracker.completion == .failure(.other))
        #expect(inner.subscription?.isCancelled == true)
        inner.send(1)
        #expect(tracker.values.isEmpty)
    }

    // MARK: Cancellation

    @Test func cancelReachesTheUpstreamAndTheCurrentInner() {
        let outer = TestPublisher<Inner, TestError>()
        let first = Inner()
        let second = Inner()
        let tracker = TrackingSubscriber<Int, TestError>()
        outer.switchToLatest().subscribe(tracker)
        outer.send(first)
        outer.send(second)
        tracker.cancel()
        #expect(outer.subscription?.cancelCount == 1)
        #expect(first.subscription?.cancelCount == 1)
        #expect(second.subscription?.cancelCount == 1)
        second.send(1)
        #expect(tracker.values.isEmpty)
    }

    @Test func everythingDeinitialisesAfterCancel() {
        weak var weakOuter: PassthroughSubject<PassthroughSubject<Int, Never>, Never>?
        weak var weakInnerPublisher: PassthroughSubject<Int, Never>?
        weak var weakSubscription: AnyObject?
        do {
            let outer = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
            let inner = PassthroughSubject<Int, Never>()
            let catcher = SubscriptionCatcher<Int, Never>()
            outer.switchToLatest().subscribe(catcher)
            outer.send(inner)
            inner.send(1)
            #expect(catcher.values == [1])
            weakOuter = outer
            weakInnerPublisher = inner
            weakSubscription = catcher.subscriptionObject
            catcher.cancel()
        }
        #expect(weakOuter == nil)
        #expect(weakInnerPublisher == nil)
        #expect(weakSubscription == nil)
    }

    // MARK: Threads

    @Test(.timeLimit(.minutes(1)))
    func switchingWhileTheInnerSendsOnAnotherThread() {
        let outer = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
        let inners = (0..<20).map { _ in PassthroughSubject<Int, Never>() }
        let subscriber = SerialCheckingSubscriber<Int, Never>()
        outer.switchToLatest().subscribe(subscriber)
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            if thread == 0 {
                for inner in inners { outer.send(inner) }
            } else {
                for i in 0..<10_000 { inners[i % 20].send(i) }
            }
        }
        outer.send(completion: .finished)
        inners[19].send(completion: .finished)
        #expect(subscriber.overlaps == 0)
        #expect(subscriber.completions == 1)
    }
}

/// Requests one value at a time; on the first value it sends `next` to the
/// outer subject from inside `receive(_:)`, so the switch happens while the
/// value is being delivered, and it asks for one more by returning `.max(1)`.
private final class SwitchingSubscriber: Subscriber {
    typealias Input = Int
    typealias Failure = TestError
    let outer: PassthroughSubject<TestPublisher<Int, TestError>, TestError>
    let next: TestPublisher<Int, TestError>
    private(set) var received: [Int] = []

    init(outer: PassthroughSubject<TestPublisher<Int, TestError>, TestError>, next: TestPublisher<Int, TestError>) {
        self.outer = outer
        self.next = next
    }

    func receive(subscription: any Subscription) {
        subscription.request(.max(1))
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        received.append(input)
        if received.count == 1 { outer.send(next) }
        return .max(1)
    }

    func receive(completion: Subscribers.Completion<TestError>) {}
}
