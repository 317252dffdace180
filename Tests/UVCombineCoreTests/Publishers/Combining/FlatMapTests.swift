import Dispatch
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineTesting

@Suite("FlatMap")
struct FlatMapTests {
    /// Inner publishers made on demand, one per upstream value, kept for
    /// inspection.
    final class Children<Output, Failure: Error> {
        private(set) var made: [TestPublisher<Output, Failure>] = []
        func make() -> TestPublisher<Output, Failure> {
            let child = TestPublisher<Output, Failure>()
            made.append(child)
            return child
        }
        subscript(i: Int) -> TestPublisher<Output, Failure> { made[i] }
    }

    @Test func flattensAndFinishesAfterEverything() {
        let tracker = TrackingSubscriber<Int, Never>()
        [1, 2, 3].publisher.flatMap { [$0, $0 * 10].publisher }.subscribe(tracker)
        #expect(tracker.history == ["subscription(FlatMap)", "value(1)", "value(10)", "value(2)", "value(20)",
                                    "value(3)", "value(30)", "finished"])
    }

    @Test func overloadsPickCombinesFailureTypes() {
        let neverNever: Publishers.FlatMap<Just<Int>, Publishers.Sequence<[Int], Never>> =
            [1].publisher.flatMap { Just($0) }
        let failingUpstream: Publishers.FlatMap<Publishers.SetFailureType<Just<Int>, TestError>,
                                                PassthroughSubject<Int, TestError>> =
            PassthroughSubject<Int, TestError>().flatMap { Just($0) }
        let failingInner: Publishers.FlatMap<Fail<Int, TestError>,
                                             Publishers.SetFailureType<Publishers.Sequence<[Int], Never>, TestError>> =
            [1].publisher.flatMap { _ in Fail<Int, TestError>(error: .boom) }
        let both: Publishers.FlatMap<Fail<Int, TestError>, PassthroughSubject<Int, TestError>> =
            PassthroughSubject<Int, TestError>().flatMap(maxPublishers: .max(2)) { _ in Fail(error: .other) }
        #expect(both.maxPublishers == .max(2))
        #expect(neverNever.maxPublishers == .unlimited)
        let tracker = TrackingSubscriber<Int, TestError>()
        failingInner.subscribe(tracker)
        #expect(tracker.history == ["subscription(FlatMap)", "failure(boom)"])
        _ = failingUpstream
    }

    // MARK: Concurrency limit

    @Test func maxPublishersLimitsInnerSubscriptions() {
        let upstream = TestPublisher<Int, Never>()
        let children = Children<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.flatMap(maxPublishers: .max(2)) { _ in children.make() }.subscribe(tracker)
        #expect(upstream.subscription?.requested == [.max(2)])
        upstream.send(1)
        upstream.send(2)
        #expect(children.made.count == 2)
        children[0].send(10)
        children[1].send(20)
        #expect(upstream.subscription?.requested == [.max(2)])
        children[1].send(completion: .finished)
        // Room for one more.
        #expect(upstream.subscription?.requested == [.max(2), .max(1)])
        upstream.send(3)
        children[2].send(30)
        #expect(tracker.values == [10, 20, 30])
    }

    @Test func unlimitedPublishersAsksUpstreamOnce() {
        let upstream = TestPublisher<Int, Never>()
        let children = Children<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.flatMap { _ in children.make() }.subscribe(tracker)
        upstream.send(1)
        children[0].send(completion: .finished)
        #expect(upstream.subscription?.requested == [.unlimited])
        #expect(children[0].subscription?.requested == [.unlimited])
    }

    @Test func manyInnerPublishersOneAfterAnother() {
        let upstream = PassthroughSubject<Int, Never>()
        var received: [Int] = []
        let c = upstream.flatMap(maxPublishers: .max(1)) { [$0, -$0].publisher }.sink { received.append($0) }
        for i in 1...100 { upstream.send(i) }
        #expect(received.count == 200)
        #expect(received.prefix(4) == [1, -1, 2, -2])
        c.cancel()
    }

    // MARK: Demand

    @Test func downstreamDemandIsSharedAcrossInnerPublishers() {
        let upstream = TestPublisher<Int, Never>()
        let children = Children<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(2))
        upstream.flatMap { _ in children.make() }.subscribe(tracker)
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        #expect(children.made.allSatisfy { $0.subscription?.requested == [.max(1)] })
        #expect(children[2].send(30) == .max(1))
        #expect(children[0].send(10) == .max(1))
        // No demand left: the next values wait, first come first served.
        #expect(children[1].send(20) == .none)
        #expect(children[2].send(31) == .none)
        #expect(tracker.values == [30, 10])
        tracker.request(.max(1))
        #expect(tracker.values == [30, 10, 20])
        #expect(children[1].subscription?.requested == [.max(1), .max(1)])
        #expect(children[2].subscription?.requested == [.max(1)])
        tracker.request(.max(1))
        #expect(tracker.values == [30, 10, 20, 31])
        #expect(children[2].subscription?.requested == [.max(1), .max(1)])
    }

    @Test func exactlyOneValuePerRequest() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        [1, 2].publisher.flatMap { [$0, $0 * 10].publisher }.subscribe(tracker)
        // Both inner publishers answer their `.max(1)` at once; waiting values
        // go out first come, first served.
        for expected in [[1], [1, 2], [1, 2, 10], [1, 2, 10, 20]] {
            tracker.request(.max(1))
            #expect(tracker.values == expected)
        }
        #expect(tracker.completion == .finished)
    }

    @Test func unlimitedRequestedLaterReachesEveryInnerPublisher() {
        let upstream = TestPublisher<Int, Never>()
        let children = Children<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        upstream.flatMap { _ in children.make() }.subscribe(tracker)
        upstream.send(1)
        upstream.send(2)
        children[1].send(20)
        tracker.request(.unlimited)
        #expect(tracker.values == [20])
        #expect(children[0].subscription?.requested == [.max(1), .unlimited])
        #expect(children[1].subscription?.requested == [.max(1), .unlimited])
        upstream.send(3)
        #expect(children[2].subscription?.requested == [.unlimited])
    }

    // MARK: Completion

    @Test func finishesWhenUpstreamAndEveryInnerPublisherHaveFinished() {
        let upstream = TestPublisher<Int, Never>()
        let children = Children<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.flatMap { _ in children.make() }.subscribe(tracker)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .finished)
        children[0].send(completion: .finished)
        #expect(tracker.completion == nil)
        children[1].send(5)
        children[1].send(completion: .finished)
        #expect(tracker.history == ["subscription(FlatMap)", "value(5)", "finished"])
    }

    @Test func innerPublishersFinishingFirstWaitForTheUpstream() {
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.flatMap { Just($0) }.subscribe(tracker)
        upstream.send(1)
        #expect(tracker.history == ["subscription(FlatMap)", "value(1)"])
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(FlatMap)", "value(1)", "finished"])
    }

    @Test func waitingValuesGoOutBeforeTheFinish() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        Just(1).flatMap { Just($0 * 7) }.subscribe(tracker)
        #expect(tracker.history == ["subscription(FlatMap)"])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(FlatMap)", "value(7)", "finished"])
    }

    @Test func innerFailureCancelsTheOtherInnerPublishersNotTheUpstream() {
        let upstream = TestPublisher<Int, TestError>()
        let children = Children<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.flatMap { _ in children.make() }.subscribe(tracker)
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        children[1].send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(FlatMap)", "failure(boom)"])
        // As Combine: the upstream is released, not cancelled.
        #expect(upstream.subscription?.isCancelled == false)
        #expect(children[0].subscription?.isCancelled == true)
        #expect(children[1].subscription?.isCancelled == false)
        #expect(children[2].subscription?.isCancelled == true)
        children[0].send(1)
        upstream.send(4)
        #expect(children.made.count == 3)
        #expect(tracker.completionCount == 1)
    }

    @Test func upstreamFailureCancelsEveryInnerPublisher() {
        let upstream = TestPublisher<Int, TestError>()
        let children = Children<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.flatMap { _ in children.make() }.subscribe(tracker)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .failure(.other))
        #expect(tracker.history == ["subscription(FlatMap)", "failure(other)"])
        #expect(children.made.allSatisfy { $0.subscription?.isCancelled == true })
        #expect(upstream.subscription?.isCancelled == false)
    }

    // MARK: Cancellation

    @Test func cancelReachesTheUpstreamAndEveryInnerPublisher() {
        let upstream = TestPublisher<Int, Never>()
        let children = Children<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.flatMap { _ in children.make() }.subscribe(tracker)
        upstream.send(1)
        upstream.send(2)
        tracker.cancel()
        #expect(upstream.subscription?.cancelCount == 1)
        #expect(children.made.allSatisfy { $0.subscription?.cancelCount == 1 })
        children[0].send(1)
        upstream.send(3)
        #expect(tracker.values.isEmpty)
        #expect(children.made.count == 2)
    }

    @Test func everythingDeinitialisesAfterCancel() {
        weak var weakUpstream: PassthroughSubject<Int, Never>?
        weak var weakChild: PassthroughSubject<Int, Never>?
        weak var weakInner: AnyObject?
        do {
            let upstream = PassthroughSubject<Int, Never>()
            let child = PassthroughSubject<Int, Never>()
            let catcher = SubscriptionCatcher<Int, Never>()
            upstream.flatMap { _ in child }.subscribe(catcher)
            upstream.send(1)
            child.send(5)
            #expect(catcher.values == [5])
            weakUpstream = upstream
            weakChild = child
            weakInner = catcher.subscriptionObject
            catcher.cancel()
        }
        #expect(weakUpstream == nil)
        #expect(weakChild == nil)
        #expect(weakInner == nil)
    }

    @Test func innerDeinitialisesAfterFinish() {
        weak var weakInner: AnyObject?
        let upstream = PassthroughSubject<Int, Never>()
        do {
            let catcher = SubscriptionCatcher<Int, Never>()
            upstream.flatMap { Just($0) }.subscribe(catcher)
            weakInner = catcher.subscriptionObject
            upstream.send(1)
            upstream.send(completion: .finished)
            #expect(catcher.completion == .finished)
        }
        #expect(weakInner == nil)
    }

    // MARK: Threads

    @Test(.timeLimit(.minutes(1)))
    func innerPublishersOnSeveralThreadsDeliverOneAtATime() {
        let upstream = PassthroughSubject<Int, Never>()
        let children = (0..<4).map { _ in PassthroughSubject<Int, Never>() }
        let subscriber = SerialCheckingSubscriber<Int, Never>()
        upstream.flatMap { children[$0] }.subscribe(subscriber)
        for i in 0..<4 { upstream.send(i) }
        upstream.send(completion: .finished)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for i in 0..<2_500 { children[thread].send(i) }
            children[thread].send(completion: .finished)
        }
        #expect(subscriber.values == 10_000)
        #expect(subscriber.completions == 1)
        #expect(subscriber.overlaps == 0)
    }
}
