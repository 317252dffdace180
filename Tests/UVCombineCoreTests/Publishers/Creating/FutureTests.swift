import Dispatch
import Foundation
import Synchronization
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineTesting

@Suite("Future")
struct FutureTests {
    @Test func closureRunsAtOnceInInit() {
        let runs = Atomic<Int>(0)
        _ = Future<Int, Never> { _ in runs.add(1, ordering: .relaxed) }
        #expect(runs.load(ordering: .relaxed) == 1)
    }

    @Test func valueWaitsForDemandThenFinishes() {
        let future = Future<Int, Never> { $0(.success(7)) }
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        future.subscribe(tracker)
        #expect(tracker.history == ["subscription(Future)"])
        tracker.request(.max(1))
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(Future)", "value(7)", "finished"])
    }

    @Test func laterSubscribersGetTheStoredResult() {
        let runs = Atomic<Int>(0)
        let future = Future<Int, Never> { promise in
            runs.add(1, ordering: .relaxed)
            promise(.success(1))
        }
        for _ in 0..<3 {
            let tracker = TrackingSubscriber<Int, Never>()
            future.subscribe(tracker)
            #expect(tracker.history == ["subscription(Future)", "value(1)", "finished"])
        }
        #expect(runs.load(ordering: .relaxed) == 1)
    }

    @Test func pendingSubscribersAllReceiveTheResult() {
        let saved = Mutex<Future<Int, Never>.Promise?>(nil)
        let future = Future<Int, Never> { promise in saved.withLock { $0 = promise } }
        let eager = TrackingSubscriber<Int, Never>()
        let lazy = TrackingSubscriber<Int, Never>(initialDemand: .none)
        future.subscribe(eager)
        future.subscribe(lazy)
        #expect(eager.values == [])
        saved.withLock { $0 }?(.success(5))
        #expect(eager.history == ["subscription(Future)", "value(5)", "finished"])
        #expect(lazy.history == ["subscription(Future)"])
        lazy.request(.max(1))
        #expect(lazy.history == ["subscription(Future)", "value(5)", "finished"])
    }

    @Test func failureIsDeliveredWithoutDemand() {
        let saved = Mutex<Future<Int, TestError>.Promise?>(nil)
        let future = Future<Int, TestError> { promise in saved.withLock { $0 = promise } }
        let pending = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        future.subscribe(pending)
        saved.withLock { $0 }?(.failure(.boom))
        #expect(pending.history == ["subscription(Future)", "failure(boom)"])
        let late = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        future.subscribe(late)
        #expect(late.history == ["subscription(Future)", "failure(boom)"])
    }

    @Test func onlyTheFirstPromiseCallCounts() {
        let future = Future<Int, TestError> { promise in
            promise(.success(1))
            promise(.success(2))
            promise(.failure(.other))
        }
        let tracker = TrackingSubscriber<Int, TestError>()
        future.subscribe(tracker)
        #expect(tracker.history == ["subscription(Future)", "value(1)", "finished"])
    }

    @Test func fulfilledFromAnotherThread() async {
        let gate = DispatchSemaphore(value: 0)
        let future = Future<Int, Never> { promise in
            Thread {
                gate.wait()
                promise(.success(42))
            }.start()
        }
        let value: Int = await withCheckedContinuation { continuation in
            let tracker = TrackingSubscriber<Int, Never>(onValue: { continuation.resume(returning: $0) })
            future.subscribe(tracker)
            gate.signal() // fulfil only once the subscriber is waiting
        }
        #expect(value == 42)
    }

    @Test func subscribingWhileAnotherThreadFulfilsDeliversExactlyOnce() {
        // Races subscription (and demand) against fulfilment: every
        // subscriber must end with exactly one value and one finish.
        let queue = DispatchQueue(label: "future-fulfil", attributes: .concurrent)
        let group = DispatchGroup()
        var trackers: [TrackingSubscriber<Int, Never>] = []
        for i in 0..<500 {
            let future = Future<Int, Never> { promise in
                queue.async(group: group) { promise(.success(i)) }
            }
            let tracker = TrackingSubscriber<Int, Never>(initialDemand: i % 2 == 0 ? .unlimited : .none)
            future.subscribe(tracker)
            if i % 2 == 1 { tracker.request(.max(1)) }
            trackers.append(tracker)
        }
        group.wait()
        for (i, tracker) in trackers.enumerated() {
            #expect(tracker.history == ["subscription(Future)", "value(\(i))", "finished"])
        }
    }

    @Test func cancelBeforeFulfilmentSendsNothing() {
        let saved = Mutex<Future<Int, Never>.Promise?>(nil)
        let future = Future<Int, Never> { promise in saved.withLock { $0 = promise } }
        let subscriber = ManualSubscriber<Int, Never>()
        future.subscribe(subscriber)
        subscriber.subscription?.request(.max(1))
        subscriber.subscription?.cancel()
        saved.withLock { $0 }?(.success(1))
        subscriber.subscription?.request(.max(1))
        #expect(subscriber.values == [])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func cancelReleasesTheSubscriberWhileThePromiseIsPending() {
        let saved = Mutex<Future<Int, Never>.Promise?>(nil)
        let future = Future<Int, Never> { promise in saved.withLock { $0 = promise } }
        weak var weakTracker: TrackingSubscriber<Int, Never>?
        do {
            let tracker = TrackingSubscriber<Int, Never>()
            weakTracker = tracker
            future.subscribe(tracker)
            #expect(weakTracker != nil)
            tracker.cancel()
        }
        #expect(weakTracker == nil)
        _ = future
    }

    @Test func cancelFromReceiveSubscriptionIsNotListed() {
        /// Cancels as soon as it is subscribed.
        final class Refuser: Subscriber {
            typealias Input = Int
            typealias Failure = Never
            func receive(subscription: any Subscription) { subscription.cancel() }
            func receive(_ input: Int) -> Subscribers.Demand { Issue.record("value after cancel"); return .none }
            func receive(completion: Subscribers.Completion<Never>) { Issue.record("completion after cancel") }
        }
        let saved = Mutex<Future<Int, Never>.Promise?>(nil)
        let future = Future<Int, Never> { promise in saved.withLock { $0 = promise } }
        weak var weakRefuser: Refuser?
        do {
            let refuser = Refuser()
            weakRefuser = refuser
            future.subscribe(refuser)
        }
        #expect(weakRefuser == nil)
        saved.withLock { $0 }?(.success(1))
    }

    @Test func worksWithOperatorsAndDeferred() {
        let runs = Atomic<Int>(0)
        let deferred = Deferred {
            Future<Int, Never> { promise in promise(.success(runs.add(1, ordering: .relaxed).newValue)) }
        }
        let a = TrackingSubscriber<Int, Never>()
        let b = TrackingSubscriber<Int, Never>()
        deferred.map { $0 * 10 }.subscribe(a)
        deferred.map { $0 * 10 }.subscribe(b)
        #expect(a.values == [10])
        #expect(b.values == [20])
    }
}
