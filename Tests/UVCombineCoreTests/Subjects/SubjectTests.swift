import Synchronization
import Testing
import UVCombineCore
import UVCombineTesting

@Suite("PassthroughSubject and CurrentValueSubject")
struct SubjectTests {
    @Test func passthroughDropsValuesWithoutDemand() {
        let subject = PassthroughSubject<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        subject.subscribe(tracker)
        subject.send(1)
        tracker.request(.max(1))
        subject.send(2)
        subject.send(3)
        #expect(tracker.values == [2])
        #expect(tracker.subscriptionNames == ["PassthroughSubject"])
    }

    @Test func demandMaxOneAtATime() {
        let subject = PassthroughSubject<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: { _ in .max(1) })
        subject.subscribe(tracker)
        for i in 1...5 { subject.send(i) }
        #expect(tracker.values == [1, 2, 3, 4, 5])
    }

    @Test func exactlyOnePerRequest() {
        let subject = PassthroughSubject<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        subject.subscribe(tracker)
        subject.send(1)
        subject.send(2)
        tracker.request(.max(1))
        subject.send(3)
        subject.send(4)
        #expect(tracker.values == [1, 3])
    }

    @Test func lateSubscriberSeesOnlyLaterValues() {
        let subject = PassthroughSubject<Int, Never>()
        let first = TrackingSubscriber<Int, Never>()
        subject.subscribe(first)
        subject.send(1)
        let second = TrackingSubscriber<Int, Never>()
        subject.subscribe(second)
        subject.send(2)
        #expect(first.values == [1, 2])
        #expect(second.values == [2])
    }

    @Test func afterCompletionNewSubscriberGetsOnlyCompletion() {
        let subject = PassthroughSubject<Int, TestError>()
        subject.send(completion: .failure(.boom))
        let tracker = TrackingSubscriber<Int, TestError>()
        subject.subscribe(tracker)
        subject.send(1)
        #expect(tracker.history == ["subscription(Empty)", "failure(boom)"])
    }

    @Test func completionOnceAndIgnoresLaterSends() {
        let subject = PassthroughSubject<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        subject.subscribe(tracker)
        subject.send(completion: .finished)
        subject.send(completion: .finished)
        subject.send(1)
        #expect(tracker.history == ["subscription(PassthroughSubject)", "finished"])
    }

    @Test func cancelDetachesSubscriber() {
        weak var weakTracker: TrackingSubscriber<Int, Never>?
        let subject = PassthroughSubject<Int, Never>()
        do {
            let tracker = TrackingSubscriber<Int, Never>()
            weakTracker = tracker
            subject.subscribe(tracker)
            subject.send(1)
            tracker.cancel()
            subject.send(2)
            #expect(tracker.values == [1])
        }
        #expect(weakTracker == nil)
    }

    @Test func reentrantSendFromSubscriber() {
        let subject = PassthroughSubject<Int, Never>()
        let seen = Mutex<[Int]>([])
        let c = subject.sink { v in
            seen.withLock { $0.append(v) }
            if v < 3 { subject.send(v + 1) }
        }
        subject.send(1)
        #expect(seen.withLock { $0 } == [1, 2, 3])
        _ = c
    }

    @Test func subscribeSubjectToPublisher() {
        let relay = PassthroughSubject<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        relay.subscribe(tracker)
        let link = [1, 2, 3].publisher.subscribe(relay)
        #expect(tracker.values == [1, 2, 3])
        #expect(tracker.completion == .finished)
        _ = link
    }

    @Test func subscribeSubjectCancellableCancelsUpstream() {
        let upstream = TestPublisher<Int, Never>()
        let relay = PassthroughSubject<Int, Never>()
        let link = upstream.subscribe(relay)
        // As in Combine, a PassthroughSubject asks its upstream only once one
        // of its own subscribers asks.
        #expect(upstream.subscription?.requested == [])
        let tracker = TrackingSubscriber<Int, Never>()
        relay.subscribe(tracker)
        #expect(upstream.subscription?.requested == [.unlimited])
        link.cancel()
        #expect(upstream.subscription?.isCancelled == true)
    }

    @Test func currentValueDeliversCurrentOnFirstDemand() {
        let subject = CurrentValueSubject<Int, Never>(1)
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        subject.subscribe(tracker)
        #expect(tracker.values == [])
        tracker.request(.max(1))
        #expect(tracker.values == [1])
        #expect(tracker.subscriptionNames == ["CurrentValueSubject"])
    }

    @Test func currentValueStarvedSubscriberGetsLatestOnRequest() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        subject.subscribe(tracker)
        subject.send(1)
        subject.send(2)
        subject.value = 3
        #expect(tracker.values == [0])
        tracker.request(.max(1))
        #expect(tracker.values == [0, 3])
        #expect(subject.value == 3)
    }

    @Test func currentValueAfterCompletionStoresSetsButIgnoresSends() {
        let subject = CurrentValueSubject<Int, Never>(5)
        subject.send(completion: .finished)
        subject.value = 6 // stored, not sent (as in Combine)
        #expect(subject.value == 6)
        subject.send(7)
        #expect(subject.value == 6)
        let tracker = TrackingSubscriber<Int, Never>()
        subject.subscribe(tracker)
        #expect(tracker.history == ["subscription(Empty)", "finished"])
    }

    @Test func concurrentSendNeitherCrashesNorLoses() async {
        let subject = PassthroughSubject<Int, Never>()
        let count = Mutex(0)
        let c = subject.sink { _ in count.withLock { $0 += 1 } }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { for i in 0..<10_000 { subject.send(i) } }
            }
        }
        #expect(count.withLock { $0 } == 40_000)
        c.cancel()
    }

    @Test func concurrentSubscribeCancelAndSend() async {
        let subject = PassthroughSubject<Int, Never>()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { for i in 0..<20_000 { subject.send(i) } }
            group.addTask {
                for _ in 0..<2_000 {
                    let c = subject.sink { _ in }
                    c.cancel()
                }
            }
        }
        subject.send(completion: .finished)
    }

    @Test func cancelFromAnotherThreadStopsDelivery() async {
        // Once cancel() has returned, a send that starts afterwards must not
        // reach the subscriber.
        final class Flags: Sendable {
            let cancelled = Atomic<Bool>(false)
            let lateValues = Atomic<Int>(0)
            let received = Atomic<Int>(0)
        }
        let flags = Flags()
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.sink { _ in
            flags.received.add(1, ordering: .relaxed)
            if flags.cancelled.load(ordering: .acquiring) { flags.lateValues.add(1, ordering: .relaxed) }
        }
        let token = UncheckedSendableBox(c)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var i = 0
                while !flags.cancelled.load(ordering: .acquiring), i < 5_000_000 {
                    subject.send(i)
                    i += 1
                }
                // Sends made after cancel() returned.
                for j in 0..<1_000 { subject.send(j) }
            }
            group.addTask {
                while flags.received.load(ordering: .relaxed) < 100 { await Task.yield() }
                token.value.cancel()
                flags.cancelled.store(true, ordering: .releasing)
            }
        }
        // cancel() waits for a value in flight, so once it has returned
        // nothing else arrives.
        #expect(flags.lateValues.load(ordering: .relaxed) == 0)
    }
}

/// Moves a value into a task in tests that synchronise by other means.
struct UncheckedSendableBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

enum TestError: Error, Equatable, CustomStringConvertible {
    case boom
    case other
    var description: String {
        switch self {
        case .boom: return "boom"
        case .other: return "other"
        }
    }
}
