import Dispatch
import Synchronization
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineTesting

@Suite("subscribe(on:)")
struct SubscribeOnTests {
    @Test func subscribingRequestingAndCancellingHappenOnTheScheduler() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(2))
        upstream.subscribe(on: scheduler).subscribe(tracker)
        #expect(upstream.subscription == nil)
        #expect(tracker.history.isEmpty)
        scheduler.advance()
        #expect(tracker.history == ["subscription(SubscribeOn)"])
        // The initial request was scheduled too; it ran at the same instant.
        #expect(upstream.subscription?.requested == [.max(2)])
        tracker.request(.max(1))
        #expect(upstream.subscription?.requested == [.max(2)])
        scheduler.advance()
        #expect(upstream.subscription?.requested == [.max(2), .max(1)])
        tracker.cancel()
        #expect(upstream.subscription?.isCancelled == false)
        scheduler.advance()
        #expect(upstream.subscription?.isCancelled == true)
    }

    @Test func valuesAndCompletionPassThroughSynchronously() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(demandPerValue: { _ in .max(1) })
        upstream.subscribe(on: scheduler).subscribe(tracker)
        scheduler.advance()
        #expect(upstream.send(1) == .max(1))
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(SubscribeOn)", "value(1)", "failure(boom)"])
    }

    @Test func oneValuePerRequestWithASequence() {
        let scheduler = DispatchQueue.test
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        (1...3).publisher.subscribe(on: scheduler).subscribe(tracker)
        scheduler.advance()
        #expect(tracker.values == [1])
        tracker.request(.max(1))
        #expect(tracker.values == [1])
        scheduler.advance()
        #expect(tracker.values == [1, 2])
    }

    @Test func subscribesOnADispatchQueue() {
        let queue = DispatchQueue(label: "uvcombine.subscribe-on")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let done = DispatchSemaphore(value: 0)
        let probe = QueueProbe(key: key)
        let c = probe.subscribe(on: queue).sink(receiveCompletion: { _ in done.signal() }, receiveValue: { _ in })
        done.wait()
        #expect(probe.subscribedOnQueue.withLock { $0 } == true)
        c.cancel()
    }

    @Test func innerIsReleasedAfterCancel() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let probe = SubscriptionProbe<Int, Never>()
        subject.subscribe(on: scheduler).subscribe(probe)
        scheduler.advance()
        scheduler.advance()
        probe.cancelAndRelease()
        scheduler.advance()
        #expect(probe.weakSubscription == nil)
    }
}

/// A publisher that records whether it was subscribed on the queue
/// carrying `key`, then behaves as `Just(1)`.
private final class QueueProbe: Publisher, @unchecked Sendable {
    typealias Output = Int
    typealias Failure = Never
    let key: DispatchSpecificKey<Int>
    let subscribedOnQueue = Mutex<Bool?>(nil)

    init(key: DispatchSpecificKey<Int>) {
        self.key = key
    }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        let onQueue = DispatchQueue.getSpecific(key: key) == 7
        subscribedOnQueue.withLock { $0 = onQueue }
        Just(1).receive(subscriber: subscriber)
    }
}
