import Dispatch
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineTesting

@Suite("Merge")
struct MergeTests {
    // MARK: Values and completion

    @Test func interleavesValuesAndFinishesWhenBothFinish() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        a.merge(with: b).subscribe(tracker)
        a.send(1)
        b.send(10)
        a.send(2)
        a.send(completion: .finished)
        #expect(tracker.completion == nil)
        b.send(11)
        b.send(completion: .finished)
        #expect(tracker.history == ["subscription(Merge)", "value(1)", "value(10)", "value(2)", "value(11)", "finished"])
    }

    @Test func mergesUpToEightPublishers() {
        let inputs = (0..<8).map { _ in TestPublisher<Int, Never>() }
        let merged: Publishers.Merge8 = inputs[0].merge(
            with: inputs[1], inputs[2], inputs[3], inputs[4], inputs[5], inputs[6], inputs[7])
        let tracker = TrackingSubscriber<Int, Never>()
        merged.subscribe(tracker)
        for i in (0..<8).reversed() { inputs[i].send(i) }
        for input in inputs { input.send(completion: .finished) }
        #expect(tracker.values == [7, 6, 5, 4, 3, 2, 1, 0])
        #expect(tracker.completion == .finished)
        #expect(inputs.allSatisfy { $0.subscription?.requested == [.unlimited] })
    }

    @Test func everyArityMerges() {
        func run<P: Publisher>(_ publisher: P) -> [Int] where P.Output == Int, P.Failure == Never {
            let tracker = TrackingSubscriber<Int, Never>()
            publisher.subscribe(tracker)
            #expect(tracker.completion == .finished)
            return tracker.values.sorted()
        }
        let j = (1...8).map { Just($0) }
        #expect(run(j[0].merge(with: j[1])) == [1, 2])
        #expect(run(j[0].merge(with: j[1], j[2])) == [1, 2, 3])
        #expect(run(j[0].merge(with: j[1], j[2], j[3])) == [1, 2, 3, 4])
        #expect(run(j[0].merge(with: j[1], j[2], j[3], j[4])) == [1, 2, 3, 4, 5])
        #expect(run(j[0].merge(with: j[1], j[2], j[3], j[4], j[5])) == [1, 2, 3, 4, 5, 6])
        #expect(run(j[0].merge(with: j[1], j[2], j[3], j[4], j[5], j[6])) == [1, 2, 3, 4, 5, 6, 7])
        #expect(run(j[0].merge(with: j[1], j[2], j[3], j[4], j[5], j[6], j[7])) == Array(1...8))
        // Growing a merge keeps one flat publisher.
        let three: Publishers.Merge3 = Publishers.Merge(j[0], j[1]).merge(with: j[2])
        #expect(run(three) == [1, 2, 3])
        let eight: Publishers.Merge8 = Publishers.Merge4(j[0], j[1], j[2], j[3]).merge(with: j[4], j[5], j[6], j[7])
        #expect(run(eight) == Array(1...8))
        let seven: Publishers.Merge7 = Publishers.Merge3(j[0], j[1], j[2]).merge(with: j[3], j[4], j[5], j[6])
        #expect(run(seven) == Array(1...7))
        #expect(run(Publishers.Merge5(j[0], j[1], j[2], j[3], j[4]).merge(with: j[5], j[6], j[7])) == Array(1...8))
        #expect(run(Publishers.Merge6(j[0], j[1], j[2], j[3], j[4], j[5]).merge(with: j[6], j[7])) == Array(1...8))
        #expect(run(Publishers.Merge7(j[0], j[1], j[2], j[3], j[4], j[5], j[6]).merge(with: j[7])) == Array(1...8))
    }

    @Test func mergeManyFromVariadicSequenceAndMergeWith() {
        let variadic = Publishers.MergeMany(Just(1), Just(2))
        let grown: Publishers.MergeMany<Just<Int>> = variadic.merge(with: Just(3))
        #expect(grown.publishers.count == 3)
        let fromSequence = Publishers.MergeMany((1...4).map { Just($0) })
        let sameType: Publishers.MergeMany<Just<Int>> = Just(5).merge(with: Just(6))
        for (publisher, expected) in [(grown, [1, 2, 3]), (fromSequence, [1, 2, 3, 4]), (sameType, [5, 6])] {
            let tracker = TrackingSubscriber<Int, Never>()
            publisher.subscribe(tracker)
            #expect(tracker.values == expected)
            #expect(tracker.completion == .finished)
        }
        #expect(Publishers.MergeMany(Just(1), Just(2)) == Publishers.MergeMany([Just(1), Just(2)]))
        #expect(Publishers.Merge(Just(1), Just(2)) == Publishers.Merge(Just(1), Just(2)))
    }

    @Test func mergeManyOfNothingFinishesOnTheFirstRequest() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        Publishers.MergeMany<Just<Int>>([]).subscribe(tracker)
        #expect(tracker.history == ["subscription(Merge)"])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(Merge)", "finished"])
    }

    @Test func emptyInputsFinishAtOnce() {
        let tracker = TrackingSubscriber<Int, Never>()
        Empty<Int, Never>().merge(with: Empty()).subscribe(tracker)
        #expect(tracker.history == ["subscription(Merge)", "finished"])
    }

    // MARK: Demand

    @Test func finiteDemandAsksEachInputForOneAtATime() {
        let a = TestPublisher<Int, Never>()
        let b = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(2))
        a.merge(with: b).subscribe(tracker)
        #expect(a.subscription?.requested == [.max(1)])
        #expect(b.subscription?.requested == [.max(1)])
        #expect(a.send(1) == .max(1))
        #expect(b.send(2) == .max(1))
        // Demand exhausted: the next values wait, and their inputs are not
        // asked for more.
        #expect(a.send(3) == .none)
        #expect(b.send(4) == .none)
        #expect(tracker.values == [1, 2])
        tracker.request(.max(1))
        #expect(tracker.values == [1, 2, 3])
        #expect(a.subscription?.requested == [.max(1), .max(1)])
        #expect(b.subscription?.requested == [.max(1)])
        tracker.request(.max(5))
        #expect(tracker.values == [1, 2, 3, 4])
        #expect(b.subscription?.requested == [.max(1), .max(1)])
        // Four left: values pass straight through again.
        #expect(b.send(5) == .max(1))
        #expect(tracker.values == [1, 2, 3, 4, 5])
    }

    @Test func neverDeliversMoreThanRequestedAcrossInputs() {
        let inputs = (0..<3).map { _ in TestPublisher<Int, Never>() }
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(2))
        Publishers.MergeMany(inputs).subscribe(tracker)
        #expect(inputs[0].send(0) == .max(1))
        #expect(inputs[1].send(1) == .max(1))
        #expect(inputs[2].send(2) == .none)
        #expect(tracker.values == [0, 1])
        // Every input was asked for one value at a time: never more than one
        // value per input beyond what the downstream asked for.
        #expect(inputs.map { $0.subscription?.totalDemand } == [.max(1), .max(1), .max(1)])
        tracker.request(.max(1))
        #expect(tracker.values == [0, 1, 2])
        #expect(inputs[2].subscription?.requested == [.max(1), .max(1)])
    }

    @Test func anInputSendingBeyondItsDemandReplacesItsWaitingValue() {
        let a = TestPublisher<Int, Never>()
        let b = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        a.merge(with: b).subscribe(tracker)
        a.send(1)
        a.send(2) // a was asked for one value only
        tracker.request(.max(5))
        #expect(tracker.values == [2])
    }

    @Test func exactlyOneValuePerRequest() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        [1, 2, 3].publisher.merge(with: [10, 20].publisher).subscribe(tracker)
        #expect(tracker.values == [])
        // Each sequence answers its `.max(1)` at once, so each has a value
        // waiting; waiting values go out in input order, as in Combine, and
        // the first input refills before the next request.
        for expected in [[1], [1, 2], [1, 2, 3], [1, 2, 3, 10], [1, 2, 3, 10, 20]] {
            tracker.request(.max(1))
            #expect(tracker.values == expected)
        }
        #expect(tracker.completion == .finished)
    }

    @Test func demandReturnedFromReceiveIsHonoured() {
        let a = TestPublisher<Int, Never>()
        let b = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: { $0 == 1 ? .max(2) : .none })
        a.merge(with: b).subscribe(tracker)
        a.send(1) // leaves 2
        b.send(2)
        a.send(3)
        b.send(4)
        #expect(tracker.values == [1, 2, 3])
    }

    @Test func unlimitedDemandGoesToEveryInput() {
        let a = TestPublisher<Int, Never>()
        let b = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        a.merge(with: b).subscribe(tracker)
        #expect(a.subscription?.requested == [.unlimited])
        #expect(b.subscription?.requested == [.unlimited])
        #expect(a.send(1) == .none)
        #expect(tracker.values == [1])
    }

    @Test func becomingUnlimitedDeliversTheBufferThenForwardsUnlimited() {
        let a = TestPublisher<Int, Never>()
        let b = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        a.merge(with: b).subscribe(tracker)
        b.send(2)
        a.send(1)
        tracker.request(.unlimited)
        #expect(tracker.values == [1, 2])
        #expect(a.subscription?.requested == [.max(1), .unlimited])
        #expect(b.subscription?.requested == [.max(1), .unlimited])
    }

    @Test func unlimitedReturnedFromReceiveIsForwarded() {
        let a = TestPublisher<Int, Never>()
        let b = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: { _ in .unlimited })
        a.merge(with: b).subscribe(tracker)
        a.send(1)
        #expect(a.subscription?.totalDemand == .unlimited)
        #expect(b.subscription?.totalDemand == .unlimited)
        b.send(2)
        a.send(3)
        #expect(tracker.values == [1, 2, 3])
    }

    @Test func anInputSubscribingLateGetsTheCurrentDemand() {
        let scheduler = DispatchQueue.test
        let a = TestPublisher<Int, Never>()
        let b = TestPublisher<Int, Never>()
        let c = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(5))
        a.merge(with: b.subscribe(on: scheduler)).subscribe(tracker)
        #expect(b.subscription == nil)
        scheduler.advance()
        #expect(b.subscription?.requested == [.max(1)])
        tracker.cancel()
        let unlimited = TrackingSubscriber<Int, Never>(initialDemand: .none)
        a.merge(with: c.subscribe(on: scheduler)).subscribe(unlimited)
        unlimited.request(.unlimited)
        scheduler.advance()
        #expect(c.subscription?.requested == [.unlimited])
    }

    // MARK: Completion rules

    @Test func finishWaitsForBufferedValues() {
        let a = TestPublisher<Int, Never>()
        let b = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        a.merge(with: b).subscribe(tracker)
        a.send(1)
        b.send(2)
        b.send(completion: .finished)
        a.send(completion: .finished)
        #expect(tracker.history == ["subscription(Merge)", "value(1)"])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(Merge)", "value(1)", "value(2)", "finished"])
        // A finished input is not asked for more.
        #expect(b.subscription?.requested == [.max(1)])
    }

    @Test func failureFromAnyInputFailsAndCancelsTheOthers() {
        let inputs = (0..<3).map { _ in TestPublisher<Int, TestError>() }
        let tracker = TrackingSubscriber<Int, TestError>()
        Publishers.MergeMany(inputs).subscribe(tracker)
        inputs[0].send(1)
        inputs[1].send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(Merge)", "value(1)", "failure(boom)"])
        #expect(inputs[0].subscription?.isCancelled == true)
        #expect(inputs[1].subscription?.isCancelled == false)
        #expect(inputs[2].subscription?.isCancelled == true)
        inputs[0].send(2)
        inputs[2].send(completion: .failure(.other))
        #expect(tracker.completionCount == 1)
        #expect(tracker.values == [1])
    }

    @Test func failureDropsBufferedValues() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        a.merge(with: b).subscribe(tracker)
        a.send(1)
        b.send(completion: .failure(.boom))
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(Merge)", "failure(boom)"])
    }

    @Test func afterOneInputFinishesTheOthersStillDeliver() {
        let a = TestPublisher<Int, TestError>()
        let b = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        a.merge(with: b).subscribe(tracker)
        a.send(completion: .finished)
        b.send(1)
        b.send(completion: .failure(.other))
        #expect(tracker.history == ["subscription(Merge)", "value(1)", "failure(other)"])
        #expect(a.subscription?.isCancelled == false)
    }

    // MARK: Cancellation

    @Test func cancelReachesEveryInput() {
        let inputs = (0..<4).map { _ in TestPublisher<Int, Never>() }
        let tracker = TrackingSubscriber<Int, Never>()
        inputs[0].merge(with: inputs[1], inputs[2], inputs[3]).subscribe(tracker)
        inputs[2].send(1)
        tracker.cancel()
        #expect(inputs.allSatisfy { $0.subscription?.cancelCount == 1 })
        inputs[1].send(2)
        inputs[0].send(completion: .finished)
        #expect(tracker.history == ["subscription(Merge)", "value(1)"])
    }

    @Test func cancelInsideReceiveSubscriptionCancelsInputsAsTheySubscribe() {
        let a = TestPublisher<Int, Never>()
        let b = TestPublisher<Int, Never>()
        let subscriber = AnySubscriber<Int, Never>(receiveSubscription: { $0.cancel() })
        a.merge(with: b).subscribe(subscriber)
        #expect(a.subscription?.isCancelled == true)
        #expect(b.subscription?.isCancelled == true)
        #expect(a.subscription?.requested == [])
    }

    @Test func cancelFromInsideReceiveStopsEverything() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        var received: [Int] = []
        var cancellable: AnyCancellable?
        cancellable = a.merge(with: b).sink { value in
            received.append(value)
            if value == 2 { cancellable?.cancel() }
        }
        a.send(1)
        b.send(2)
        a.send(3)
        b.send(4)
        #expect(received == [1, 2])
        _ = cancellable
    }

    @Test func secondSubscriptionToAnInputIsCancelled() {
        let twice = SubscribesTwice<Int>()
        let tracker = TrackingSubscriber<Int, Never>()
        twice.merge(with: Empty()).subscribe(tracker)
        #expect(twice.extra.isCancelled)
        #expect(twice.first.subscription?.isCancelled == false)
    }

    @Test func everythingDeinitialisesAfterCancel() {
        weak var weakA: PassthroughSubject<Int, Never>?
        weak var weakB: PassthroughSubject<Int, Never>?
        weak var weakInner: AnyObject?
        do {
            let a = PassthroughSubject<Int, Never>()
            let b = PassthroughSubject<Int, Never>()
            let catcher = SubscriptionCatcher<Int, Never>()
            a.merge(with: b).subscribe(catcher)
            a.send(1)
            b.send(2)
            #expect(catcher.values == [1, 2])
            weakA = a
            weakB = b
            weakInner = catcher.subscriptionObject
            catcher.cancel()
        }
        #expect(weakA == nil)
        #expect(weakB == nil)
        #expect(weakInner == nil)
    }

    @Test func innerDeinitialisesAfterFinishWhileInputsLive() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        weak var weakInner: AnyObject?
        do {
            let catcher = SubscriptionCatcher<Int, Never>()
            a.merge(with: b).subscribe(catcher)
            weakInner = catcher.subscriptionObject
            a.send(completion: .finished)
            b.send(completion: .finished)
            #expect(catcher.completion == .finished)
        }
        #expect(weakInner == nil)
    }

    @Test func innerDeinitialisesAfterFailureWhileInputsLive() {
        let a = PassthroughSubject<Int, TestError>()
        let b = PassthroughSubject<Int, TestError>()
        weak var weakInner: AnyObject?
        do {
            let catcher = SubscriptionCatcher<Int, TestError>()
            a.merge(with: b).subscribe(catcher)
            weakInner = catcher.subscriptionObject
            a.send(completion: .failure(.boom))
            #expect(catcher.completion == .failure(.boom))
        }
        #expect(weakInner == nil)
    }

    // MARK: Re-entrancy and threads

    @Test func anInputSendingFromInsideReceiveIsDelivered() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        var received: [Int] = []
        let c = a.merge(with: b).sink { value in
            received.append(value)
            if value == 1 { b.send(2) }
        }
        a.send(1)
        a.send(3)
        #expect(received == [1, 2, 3])
        c.cancel()
    }

    @Test func requestFromInsideReceiveDoesNotRecurse() {
        let a = TestPublisher<Int, Never>()
        let b = TestPublisher<Int, Never>()
        let subscriber = DepthRecordingSubscriber<Int, Never>(requestInside: .max(1))
        a.merge(with: b).subscribe(subscriber)
        b.send(2) // waits: nothing requested yet
        a.send(3) // waits too
        subscriber.request(.max(1))
        // Waiting values go out in input order: 3 (input a) first; its
        // request from inside receive lets 2 follow once 3 has returned
        // (depth 1 each time, never nested).
        #expect(subscriber.received == [3, 2])
        #expect(subscriber.depths == [1, 1])
        #expect(b.subscription?.requested == [.max(1), .max(1)])
        #expect(a.subscription?.requested == [.max(1), .max(1)])
    }

    @Test(.timeLimit(.minutes(1)))
    func concurrentInputsDeliverOneAtATime() {
        let subjects = (0..<4).map { _ in PassthroughSubject<Int, Never>() }
        let subscriber = SerialCheckingSubscriber<Int, Never>()
        Publishers.MergeMany(subjects).subscribe(subscriber)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for i in 0..<5_000 { subjects[thread].send(i) }
        }
        for subject in subjects { subject.send(completion: .finished) }
        #expect(subscriber.values == 20_000)
        #expect(subscriber.completions == 1)
        #expect(subscriber.overlaps == 0)
    }

    @Test(.timeLimit(.minutes(1)))
    func cancellingFromInsideReceiveWhileOtherThreadsSendDoesNotDeadlock() {
        for _ in 0..<50 {
            let subjects = (0..<2).map { _ in PassthroughSubject<Int, Never>() }
            let subscriber = SerialCheckingSubscriber<Int, Never>(cancelAfter: 100)
            subjects[0].merge(with: subjects[1]).subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                for i in 0..<1_000 { subjects[thread].send(i) }
            }
            #expect(subscriber.values == 100)
            #expect(subscriber.overlaps == 0)
        }
    }
}
