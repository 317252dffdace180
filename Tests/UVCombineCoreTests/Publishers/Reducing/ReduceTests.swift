import Testing
import UVCombineCore
import UVCombineTesting

@Suite("reduce, tryReduce, count")
struct ReduceTests {
    // MARK: reduce

    @Test func reducesAndPublishesOnFinish() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.reduce(10) { $0 + $1 }.subscribe(tracker)
        #expect(upstream.subscription?.requested == [.unlimited])
        #expect(upstream.send(1) == .none)
        upstream.send(2)
        #expect(tracker.history == ["subscription(Reduce)"])
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(Reduce)", "value(13)", "finished"])
    }

    @Test func eachSubscriptionStartsFromTheInitialValue() {
        let reduce = [1, 2].publisher.reduce("") { $0 + "\($1)" }
        let a = TrackingSubscriber<String, Never>()
        let b = TrackingSubscriber<String, Never>()
        reduce.subscribe(a)
        reduce.subscribe(b)
        #expect(a.values == ["12"])
        #expect(b.values == ["12"])
        let empty = TrackingSubscriber<Int, Never>()
        Empty<Int, Never>().reduce(7, +).subscribe(empty)
        #expect(empty.history == ["subscription(Reduce)", "value(7)", "finished"])
    }

    @Test func theResultWaitsForDemand() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        (1...4).publisher.eraseToAnyPublisher().reduce(0, +).subscribe(tracker)
        #expect(tracker.history == ["subscription(Reduce)"])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(Reduce)", "value(10)", "finished"])
    }

    @Test func failureIsForwarded() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        upstream.reduce(0, +).subscribe(tracker)
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(Reduce)", "failure(boom)"])
    }

    @Test func reduceContract() {
        OperatorChecks.cancelReachesUpstream { $0.reduce(0, +) }
        OperatorChecks.cancelReleasesTheChain { $0.reduce(0, +) }
        OperatorChecks.completionReleasesTheChain { $0.reduce(0, +) }
        OperatorChecks.secondSubscriptionIsCancelled { $0.reduce(0, +) }
    }

    // MARK: tryReduce

    @Test func tryReduceReduces() {
        let tracker = TrackingSubscriber<Int, any Error>()
        (1...3).publisher.eraseToAnyPublisher().tryReduce(0) { $0 + $1 }.subscribe(tracker)
        #expect(tracker.history == ["subscription(TryReduce)", "value(6)", "finished"])
    }

    @Test func tryReduceThrowCancelsUpstreamAndFailsWithoutDemand() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, any Error>(initialDemand: .none)
        upstream.tryReduce(0) { sum, v in
            guard sum + v < 5 else { throw TestError.other }
            return sum + v
        }.subscribe(tracker)
        upstream.send(2)
        upstream.send(3)
        #expect(upstream.subscription?.cancelCount == 1)
        upstream.send(4)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(TryReduce)", "failure(other)"])
    }

    @Test func tryReduceErasesUpstreamFailure() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, any Error>()
        upstream.tryReduce(0, +).subscribe(tracker)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(TryReduce)", "failure(boom)"])
    }

    @Test func tryReduceContract() {
        OperatorChecks.cancelReachesUpstream { $0.tryReduce(0, +) }
        OperatorChecks.cancelReleasesTheChain { $0.tryReduce(0, +) }
        OperatorChecks.secondSubscriptionIsCancelled { $0.tryReduce(0, +) }
    }

    // MARK: count

    @Test func countsAndPublishesOnFinish() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        upstream.count().subscribe(tracker)
        #expect(upstream.subscription?.requested == [.unlimited])
        for i in 0..<5 { upstream.send(i) }
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(Count)"])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(Count)", "value(5)", "finished"])
        let empty = TrackingSubscriber<Int, Never>()
        Empty<String, Never>().count().subscribe(empty)
        #expect(empty.values == [0])
        let paced = OneByOne<Int, Never>()
        (0..<10).publisher.count().subscribe(paced)
        #expect(paced.values == [10])
        #expect(paced.completion == .finished)
    }

    @Test func countContract() {
        OperatorChecks.cancelReachesUpstream { $0.count() }
        OperatorChecks.cancelReleasesTheChain { $0.count() }
        OperatorChecks.completionReleasesTheChain { $0.count() }
        OperatorChecks.secondSubscriptionIsCancelled { $0.count() }
        #expect([1].publisher.count() == [1].publisher.count())
    }

    // MARK: Delivery rules shared by every reducer

    @Test func cancelWhileTheResultWaitsDeliversNothing() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = ManualSubscriber<Int, TestError>()
        upstream.count().subscribe(subscriber)
        upstream.send(1)
        upstream.send(completion: .finished)
        subscriber.subscription?.cancel()
        subscriber.subscription?.request(.max(1))
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completions.isEmpty)
    }

    @Test func cancellingFromReceiveSubscriptionStillRequestsAsCombine() {
        let upstream = TestPublisher<Int, Never>()
        let cancelling = CancelsAtOnce<Int>()
        upstream.count().subscribe(cancelling)
        // Combine requests `.unlimited` after handing the subscription on,
        // whatever the downstream did meanwhile; the cancelled upstream
        // ignores it.
        #expect(upstream.subscription?.requested == [.unlimited])
        #expect(upstream.subscription?.cancelCount == 1)
    }
}

/// Cancels its subscription as soon as it gets it.
final class CancelsAtOnce<Input>: Subscriber {
    typealias Failure = Never
    func receive(subscription: any Subscription) { subscription.cancel() }
    func receive(_ input: Input) -> Subscribers.Demand { .none }
    func receive(completion: Subscribers.Completion<Never>) {}
}
