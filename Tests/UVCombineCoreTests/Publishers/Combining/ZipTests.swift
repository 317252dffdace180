import Dispatch
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineTesting

@Suite("Zip")
struct ZipTests {
    @Test func pairsValuesInOrder() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<String, TestError>()
        let tracker = TrackingSubscriber<(Int, String), TestError>()
        a.zip(b).subscribe(tracker)
        a.send(1)
        a.send(2)
        b.send("x")
        b.send("y")
        b.send("z")
        #expect(tracker.values.map { "\($0.0)\($0.1)" } == ["1x", "2y"])
        a.send(3)
        #expect(tracker.values.map { "\($0.0)\($0.1)" } == ["1x", "2y", "3z"])
        #expect(tracker.subscriptionNames == ["Zip"])
    }

    @Test func transformVariants() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let c = PassthroughSubject<Int, Never>()
        let d = PassthroughSubject<Int, Never>()
        var two: [Int] = [], three: [Int] = [], four: [Int] = []
        let c2 = a.zip(b) { $0 * $1 }.sink { two.append($0) }
        let c3 = a.zip(b, c) { $0 + $1 + $2 }.sink { three.append($0) }
        let c4 = a.zip(b, c, d) { $0 + $1 + $2 + $3 }.sink { four.append($0) }
        a.send(2)
        a.send(4)
        b.send(3)
        c.send(10)
        d.send(100)
        b.send(5)
        #expect(two == [6, 20])
        #expect(three == [15])
        #expect(four == [115])
        _ = (c2, c3, c4)
    }

    @Test func threeAndFourInputsPublishTuples() {
        let tracker3 = TrackingSubscriber<(Int, Int, Int), Never>()
        Publishers.Zip3([1, 2].publisher, [10, 20, 30].publisher, [100, 200].publisher).subscribe(tracker3)
        #expect(tracker3.values.map { [$0.0, $0.1, $0.2] } == [[1, 10, 100], [2, 20, 200]])
        #expect(tracker3.completion == .finished)
        let tracker4 = TrackingSubscriber<(Int, Int, Int, Int), Never>()
        Just(1).zip(Just(2), Just(3), Just(4)).subscribe(tracker4)
        #expect(tracker4.values.map { [$0.0, $0.1, $0.2, $0.3] } == [[1, 2, 3, 4]])
        #expect(tracker4.completion == .finished)
        #expect(Publishers.Zip(Just(1), Just(2)) == Publishers.Zip(Just(1), Just(2)))
    }

    // MARK: Completion

    @Test func finishesWhenAFinishedInputHasNoMoreValues() {
        let a = TestPublisher<Int, Never>()
        let b = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<(Int, Int), Never>()
        a.zip(b).subscribe(tracker)
        a.send(1)
        a.send(2)
        a.send(completion: .finished)
        #expect(tracker.completion == nil)
        b.send(10)
        #expect(tracker.completion == nil)
        #expect(b.subscription?.isCancelled == false)
        b.send(20)
        #expect(tracker.history == ["subscription(Zip)", "value((1, 10))", "value((2, 20))", "finished"])
        #expect(b.subscription?.isCancelled == true)
        #expect(a.subscription?.isCancelled == false)
    }

    @Test func finishesAtOnceWhenAnInputFinishesWithAnEmptyQueue() {
        let a = TestPublisher<Int, Never>()
        let b = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<(Int, Int), Never>()
        a.zip(b).subscribe(tracker)
        b.send(1)
        a.send(completion: .finished)
        #expect(tracker.history == ["subscription(Zip)", "finished"])
        #expect(b.subscription?.isCancelled == true)
    }

    @Test func failureFromAnyInputFailsAndCancelsTheOthers() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<Int, TestError>()
        let c = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<(Int, Int, Int), TestError>()
        a.zip(b, c).subscribe(tracker)
        a.send(1)
        b.send(2)
        c.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(Zip)", "failure(boom)"])
        #expect(a.subscription?.isCancelled == true)
        #expect(b.subscription?.isCancelled == true)
        #expect(c.subscription?.isCancelled == false)
        c.send(3)
        #expect(tracker.completionCount == 1)
    }

    // MARK: Demand

    /// Every request reaches every input. Combine's zip counts no demand of
    /// its own: a tuple goes out once every input has a value, so inputs
    /// that send beyond their demand (TestPublisher does not check) get
    /// their extra tuple through.
    @Test func requestsGoToEveryInputAndTuplesGoOutWhenComplete() {
        let a = TestPublisher<Int, Never>()
        let b = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<(Int, Int), Never>(initialDemand: .max(2))
        a.zip(b).subscribe(tracker)
        #expect(a.subscription?.requested == [.max(2)])
        #expect(b.subscription?.requested == [.max(2)])
        for i in 1...3 {
            a.send(i)
            b.send(i * 10)
        }
        #expect(tracker.values.map { [$0.0, $0.1] } == [[1, 10], [2, 20], [3, 30]])
        tracker.request(.max(1))
        #expect(a.subscription?.requested == [.max(2), .max(1)])
        #expect(b.subscription?.requested == [.max(2), .max(1)])
    }

    /// Demand the downstream returns for a tuple is the answer of the input
    /// whose value completed it, and a request to the others (Combine's).
    @Test func demandReturnedFromReceiveIsTheSendersAnswerAndTheOthersRequest() {
        let a = TestPublisher<Int, Never>()
        let b = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<(Int, Int), Never>(initialDemand: .max(1), demandPerValue: { _ in .max(1) })
        a.zip(b).subscribe(tracker)
        #expect(a.send(1) == .none)
        #expect(b.send(10) == .max(1))
        #expect(a.subscription?.requested == [.max(1), .max(1)])
        #expect(b.subscription?.requested == [.max(1)])
        #expect(b.send(20) == .none)
        #expect(a.send(2) == .max(1))
        #expect(tracker.values.count == 2)
        #expect(b.subscription?.requested == [.max(1), .max(1)])
    }

    /// A request made while receiving a tuple joins that answer.
    @Test func aRequestFromInsideReceiveJoinsTheSendersAnswer() {
        let a = TestPublisher<Int, Never>()
        let b = TestPublisher<Int, Never>()
        let subscriber = DepthRecordingSubscriber<(Int, Int), Never>(requestInside: .max(2))
        a.zip(b).subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(a.send(1) == .none)
        #expect(b.send(10) == .max(2))
        #expect(a.subscription?.requested == [.max(1), .max(2)])
        #expect(b.subscription?.requested == [.max(1)])
    }

    @Test func exactlyOneTuplePerRequest() {
        let tracker = TrackingSubscriber<(Int, Int), Never>(initialDemand: .none)
        [1, 2, 3].publisher.zip([10, 20, 30, 40].publisher).subscribe(tracker)
        for n in 1...3 {
            tracker.request(.max(1))
            #expect(tracker.values.count == n)
        }
        #expect(tracker.values.map(\.1) == [10, 20, 30])
        #expect(tracker.completion == .finished)
    }

    // MARK: Cancellation

    @Test func cancelReachesEveryInput() {
        let inputs = (0..<4).map { _ in TestPublisher<Int, Never>() }
        let tracker = TrackingSubscriber<(Int, Int, Int, Int), Never>()
        inputs[0].zip(inputs[1], inputs[2], inputs[3]).subscribe(tracker)
        inputs[0].send(1)
        tracker.cancel()
        #expect(inputs.allSatisfy { $0.subscription?.cancelCount == 1 })
        for input in inputs { input.send(2) }
        #expect(tracker.values.isEmpty)
    }

    @Test func everythingDeinitialisesAfterCancel() {
        weak var weakA: PassthroughSubject<Int, Never>?
        weak var weakInner: AnyObject?
        do {
            let a = PassthroughSubject<Int, Never>()
            let b = PassthroughSubject<Int, Never>()
            let catcher = SubscriptionCatcher<(Int, Int), Never>()
            a.zip(b).subscribe(catcher)
            a.send(1)
            b.send(2)
            a.send(3)
            #expect(catcher.values.count == 1)
            weakA = a
            weakInner = catcher.subscriptionObject
            catcher.cancel()
        }
        #expect(weakA == nil)
        #expect(weakInner == nil)
    }

    @Test func innerDeinitialisesAfterFinishWhileInputsLive() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        weak var weakInner: AnyObject?
        do {
            let catcher = SubscriptionCatcher<(Int, Int), Never>()
            a.zip(b).subscribe(catcher)
            weakInner = catcher.subscriptionObject
            a.send(completion: .finished)
            #expect(catcher.completion == .finished)
        }
        #expect(weakInner == nil)
    }

    // MARK: Re-entrancy and threads

    @Test func valuesSentFromInsideReceiveWaitForTheCurrentTuple() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        var received: [[Int]] = []
        var depth = 0
        var maxDepth = 0
        let c = a.zip(b).sink { pair in
            depth += 1
            maxDepth = max(maxDepth, depth)
            received.append([pair.0, pair.1])
            if pair.0 == 1 {
                a.send(2)
                b.send(20)
            }
            depth -= 1
        }
        a.send(1)
        b.send(10)
        #expect(received == [[1, 10], [2, 20]])
        #expect(maxDepth == 1)
        c.cancel()
    }

    @Test(.timeLimit(.minutes(1)))
    func concurrentInputsDeliverOneAtATime() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let subscriber = SerialCheckingSubscriber<(Int, Int), Never>()
        a.zip(b).subscribe(subscriber)
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            let subject = thread == 0 ? a : b
            for i in 0..<5_000 { subject.send(i) }
        }
        #expect(subscriber.values == 5_000)
        #expect(subscriber.overlaps == 0)
        a.send(completion: .finished)
        #expect(subscriber.completions == 1)
    }
}
