import Dispatch
import Synchronization
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineTesting

@Suite("receive(on:)")
struct ReceiveOnTests {
    @Test func subscriptionArrivesSynchronouslyValuesOnlyOnTheScheduler() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.receive(on: scheduler).subscribe(tracker)
        #expect(tracker.history == ["subscription(ReceiveOn)"])
        #expect(upstream.subscription?.requested == [.unlimited])
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(ReceiveOn)"])
        scheduler.advance()
        #expect(tracker.history == ["subscription(ReceiveOn)", "value(1)", "value(2)", "finished"])
    }

    @Test func failureFollowsTheValues() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.receive(on: scheduler).subscribe(tracker)
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        upstream.send(2) // after completion: ignored
        scheduler.advance()
        #expect(tracker.history == ["subscription(ReceiveOn)", "value(1)", "failure(boom)"])
    }

    @Test func oneScheduledActionPerValueAsCombine() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        subject.receive(on: scheduler).subscribe(tracker)
        for i in 0..<1_000 { subject.send(i) }
        #expect(scheduler.pendingActionCount == 1_000)
        scheduler.advance()
        #expect(tracker.values == Array(0..<1_000))
        #expect(scheduler.executedActionCount == 1_000)
        subject.send(1_000)
        scheduler.advance()
        #expect(scheduler.executedActionCount == 1_001)
        #expect(tracker.values.last == 1_000)
    }

    @Test func valuesArrivingDuringADeliveryAreScheduledToo() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(onValue: { value in
            if value < 3 { subject.send(value + 10) } // re-entrant send from inside delivery
        })
        subject.receive(on: scheduler).subscribe(tracker)
        subject.send(1)
        subject.send(2)
        scheduler.advance()
        // 11 and 12 arrived during deliveries and got their own actions at
        // the same instant.
        #expect(tracker.values == [1, 2, 11, 12])
        #expect(scheduler.executedActionCount == 4)
    }

    @Test func demandIsPassedUpstreamSynchronously() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: { _ in .max(1) })
        upstream.receive(on: scheduler).subscribe(tracker)
        #expect(upstream.subscription?.requested == [.max(1)])
        tracker.request(.max(2))
        #expect(upstream.subscription?.requested == [.max(1), .max(2)])
        upstream.send(7)
        scheduler.advance()
        #expect(tracker.values == [7])
        // The demand returned from receive(_:) goes upstream after delivery.
        #expect(upstream.subscription?.requested == [.max(1), .max(2), .max(1)])
    }

    @Test func oneValuePerRequestWithASequence() {
        let scheduler = DispatchQueue.test
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        (1...3).publisher.receive(on: scheduler).subscribe(tracker)
        scheduler.advance()
        #expect(tracker.values == [1])
        tracker.request(.max(1))
        scheduler.advance()
        #expect(tracker.values == [1, 2])
        tracker.request(.max(1))
        scheduler.advance()
        #expect(tracker.history == ["subscription(ReceiveOn)", "value(1)", "value(2)", "value(3)", "finished"])
    }

    @Test func cancelDropsValuesAlreadyScheduledAndReachesUpstream() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.receive(on: scheduler).subscribe(tracker)
        upstream.send(1)
        upstream.send(2)
        tracker.cancel()
        #expect(upstream.subscription?.isCancelled == true)
        scheduler.advance()
        #expect(tracker.values.isEmpty)
        upstream.send(3)
        scheduler.advance()
        #expect(tracker.history == ["subscription(ReceiveOn)"])
    }

    @Test func cancelAfterUpstreamFinishedIsIgnoredAsInCombine() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.receive(on: scheduler).subscribe(tracker)
        upstream.send(1)
        upstream.send(completion: .finished)
        tracker.cancel()
        scheduler.advance()
        #expect(tracker.history == ["subscription(ReceiveOn)", "value(1)", "finished"])
        #expect(upstream.subscription?.isCancelled == false)
    }

    @Test func cancelFromInsideADeliveryStopsTheRest() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let box = CancelBox()
        let tracker = TrackingSubscriber<Int, Never>(onValue: { if $0 == 2 { box.cancel() } })
        box.target = tracker
        subject.receive(on: scheduler).subscribe(tracker)
        for i in 1...5 { subject.send(i) }
        scheduler.advance()
        #expect(tracker.values == [1, 2])
    }

    @Test func innerIsReleasedOnceThePendingActionRan() {
        // (TestPublisher keeps its subscribers; a subject releases them.)
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let probe = SubscriptionProbe<Int, Never>()
        subject.receive(on: scheduler).subscribe(probe)
        subject.send(1) // an action is now pending; it holds the inner, as in Combine
        #expect(probe.weakSubscription != nil)
        probe.cancelAndRelease()
        #expect(probe.weakSubscription != nil)
        scheduler.advance() // the pending action delivers nothing and lets go
        #expect(probe.weakSubscription == nil)
        #expect(probe.values.isEmpty)
    }

    @Test func pendingValuesKeepTheInnerAliveUntilDelivered() {
        // A subscriber that does not keep its subscription: the values
        // queued for the scheduler are still delivered.
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let values = Mutex<[Int]>([])
        subject.receive(on: scheduler).subscribe(AnySubscriber<Int, Never>(
            receiveSubscription: { $0.request(.unlimited) },
            receiveValue: { v in values.withLock { $0.append(v) }; return .none }))
        subject.send(1)
        subject.send(completion: .finished)
        scheduler.advance()
        #expect(values.withLock { $0 } == [1])
    }

    @Test func immediateSchedulerDeliversSynchronouslyWithoutRecursion() {
        // 100,000 values, one requested at a time: every request makes the
        // sequence emit inside the running drain. The drain must loop, not
        // recurse through the scheduler.
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: { _ in .max(1) })
        (0..<100_000).publisher.receive(on: ImmediateScheduler.shared).subscribe(tracker)
        #expect(tracker.values.count == 100_000)
        #expect(tracker.values.last == 99_999)
        #expect(tracker.completion == .finished)
    }

    @Test func deliversInOrderOnADispatchQueue() {
        let queue = DispatchQueue(label: "uvcombine.receive-on")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "target")
        let subject = PassthroughSubject<Int, Never>()
        let done = DispatchSemaphore(value: 0)
        let seen = Mutex<(values: [Int], wrongQueue: Int)>(([], 0))
        let c = subject.receive(on: queue).sink(
            receiveCompletion: { _ in
                if DispatchQueue.getSpecific(key: key) != "target" { seen.withLock { $0.wrongQueue += 1 } }
                done.signal()
            },
            receiveValue: { value in
                dispatchPrecondition(condition: .onQueue(queue))
                seen.withLock {
                    $0.values.append(value)
                    if DispatchQueue.getSpecific(key: key) != "target" { $0.wrongQueue += 1 }
                }
            })
        DispatchQueue.global().async {
            for i in 0..<10_000 { subject.send(i) }
            subject.send(completion: .finished)
        }
        done.wait()
        let result = seen.withLock { $0 }
        #expect(result.values == Array(0..<10_000))
        #expect(result.wrongQueue == 0)
        c.cancel()
    }

    @Test func manyProducersOneConsumerQueueLosesNothing() {
        let queue = DispatchQueue(label: "uvcombine.receive-on.many")
        let subject = PassthroughSubject<Int, Never>()
        let total = Mutex(0)
        let received = DispatchSemaphore(value: 0)
        let c = subject.receive(on: queue).sink { value in
            dispatchPrecondition(condition: .onQueue(queue))
            let n = total.withLock { $0 += 1; return $0 }
            if n == 8 * 2_000 { received.signal() }
            _ = value
        }
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for i in 0..<2_000 { subject.send(thread * 10_000 + i) }
        }
        received.wait()
        #expect(total.withLock { $0 } == 16_000)
        c.cancel()
    }

    @Test func description() {
        let probe = SubscriptionProbe<Int, Never>()
        Just(1).receive(on: DispatchQueue.test).subscribe(probe)
        #expect(probe.subscriptionDescription == "ReceiveOn")
    }
}
