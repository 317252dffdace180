import Synchronization
import Testing
import UVCombineCore
import UVCombineTesting

/// A connectable publisher that records connects and disconnects.
private final class RecordingConnectable: ConnectablePublisher {
    typealias Output = Int
    typealias Failure = Never

    let subject = PassthroughSubject<Int, Never>()
    private(set) var log: [String] = []
    private(set) var subscriberNames: [String] = []

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriberNames.append(String(describing: subscriber))
        subject.subscribe(subscriber)
    }

    func connect() -> any Cancellable {
        log.append("connect")
        return AnyCancellable { [weak self] in self?.log.append("disconnect") }
    }
}

@Suite("Autoconnect")
struct AutoconnectTests {
    @Test func connectsOnFirstSubscriberOnly() {
        let upstream = RecordingConnectable()
        let auto = upstream.autoconnect()
        #expect(upstream.log == [])
        let first = TrackingSubscriber<Int, Never>()
        auto.subscribe(first)
        #expect(upstream.log == ["connect"])
        let second = TrackingSubscriber<Int, Never>()
        auto.subscribe(second)
        #expect(upstream.log == ["connect"])
        upstream.subject.send(1)
        #expect(first.values == [1])
        #expect(second.values == [1])
        first.cancel()
        second.cancel()
    }

    @Test func lastCancelDisconnectsAndALaterSubscriberReconnects() {
        let upstream = TestPublisher<Int, Never>()
        let auto = upstream.makeConnectable().autoconnect()
        let first = TrackingSubscriber<Int, Never>()
        let second = TrackingSubscriber<Int, Never>()
        auto.subscribe(first)
        auto.subscribe(second)
        #expect(upstream.allSubscriptions.count == 1)
        upstream.send(1)

        first.cancel()
        #expect(upstream.subscription?.isCancelled == false)
        upstream.send(2)
        second.cancel()
        #expect(upstream.allSubscriptions[0].isCancelled)

        let third = TrackingSubscriber<Int, Never>()
        auto.subscribe(third)
        #expect(upstream.allSubscriptions.count == 2)
        #expect(upstream.allSubscriptions[1].isCancelled == false)
        #expect(upstream.allSubscriptions[1].requested == [.unlimited])
        upstream.send(3)
        #expect(first.values == [1])
        #expect(second.values == [1, 2])
        #expect(third.values == [3])
        third.cancel()
        #expect(upstream.allSubscriptions[1].isCancelled)
    }

    @Test func cancellingTheSameSubscriptionTwiceCountsOnce() {
        let upstream = RecordingConnectable()
        let auto = upstream.autoconnect()
        let first = SubscriptionCatcher<Int, Never>()
        let second = TrackingSubscriber<Int, Never>()
        auto.subscribe(first)
        auto.subscribe(second)
        let subscription = first.subscription
        subscription?.cancel()
        subscription?.cancel()
        #expect(upstream.log == ["connect"])
        upstream.subject.send(5)
        #expect(second.values == [5])
        second.cancel()
        #expect(upstream.log == ["connect", "disconnect"])
    }

    @Test func completionDoesNotDisconnect() {
        let upstream = TestPublisher<Int, Never>()
        let auto = upstream.makeConnectable().autoconnect()
        let first = TrackingSubscriber<Int, Never>()
        auto.subscribe(first)
        upstream.send(completion: .finished)
        #expect(first.completion == .finished)
        #expect(upstream.subscription?.isCancelled == false)
        // The completed subject answers a new subscriber; no reconnect.
        let late = TrackingSubscriber<Int, Never>()
        auto.subscribe(late)
        #expect(late.history == ["subscription(Multicast)", "finished"])
        #expect(upstream.allSubscriptions.count == 1)
    }

    @Test func reentrantSubscribeWhileConnectingConnectsTwiceAsCombine() {
        let upstream = RecordingConnectable()
        let auto = upstream.autoconnect()
        let inner = TrackingSubscriber<Int, Never>()
        let outer = AnySubscriber<Int, Never>(
            receiveSubscription: { subscription in
                auto.subscribe(inner)
                subscription.request(.unlimited)
            })
        auto.subscribe(outer)
        // Combine: the inner subscriber (same thread, while connecting)
        // connects too; the outer one's connection replaces it, counted once
        // (the replaced AnyCancellable cancels as it is dropped).
        #expect(upstream.log == ["connect", "connect", "disconnect"])
        upstream.subject.send(1)
        #expect(inner.values == [1])
        inner.cancel()
        #expect(upstream.log == ["connect", "connect", "disconnect", "disconnect"])
    }

    @Test func cancelWhileConnectingDisconnectsWhenConnectReturns() {
        // The first value arrives during connect(); the only subscriber
        // cancels on it, so the connection is cancelled as soon as it exists.
        final class Box { var subscription: (any Subscription)?; var seen: [Int] = [] }
        let box = Box()
        let upstream = CurrentValueSubject<Int, Never>(1)
        let auto = upstream.makeConnectable().autoconnect()
        let subscriber = AnySubscriber<Int, Never>(
            receiveSubscription: { subscription in
                box.subscription = subscription
                subscription.request(.unlimited)
            },
            receiveValue: { value in
                box.seen.append(value)
                box.subscription?.cancel()
                return .none
            })
        auto.subscribe(subscriber)
        #expect(box.seen == [1])
        upstream.value = 2 // the connection is gone: nobody receives it
        #expect(box.seen == [1])
        // Disconnected: a new subscriber connects again.
        let again = TrackingSubscriber<Int, Never>()
        auto.subscribe(again)
        upstream.value = 3
        #expect(again.history == ["subscription(Multicast)", "value(2)", "value(3)"])
        again.cancel()
    }

    @Test func descriptionsMatchCombine() {
        // The subscriber sees the upstream's own subscription description;
        // the upstream sees a subscriber named Autoconnect.
        let upstream = RecordingConnectable()
        let auto = upstream.autoconnect()
        let tracker = TrackingSubscriber<Int, Never>()
        auto.subscribe(tracker)
        #expect(tracker.subscriptionNames == ["PassthroughSubject"])
        #expect(upstream.subscriberNames == ["Autoconnect"])
        let shared = TrackingSubscriber<Int, Never>()
        PassthroughSubject<Int, Never>().makeConnectable().autoconnect().subscribe(shared)
        #expect(shared.subscriptionNames == ["Multicast"])
        tracker.cancel()
        shared.cancel()
    }

    @Test func demandPassesThrough() {
        let upstream = TestPublisher<Int, Never>()
        let auto = upstream.makeConnectable().autoconnect()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: { _ in .max(1) })
        auto.subscribe(tracker)
        for i in 1...3 { upstream.send(i) }
        #expect(tracker.values == [1, 2, 3])
        let limited = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        auto.subscribe(limited)
        upstream.send(4)
        upstream.send(5)
        #expect(limited.values == [4])
        tracker.cancel()
        limited.cancel()
    }

    @Test func everythingDeinitialisesAfterCancel() {
        weak var weakAuto: Publishers.Autoconnect<Publishers.Multicast<CountingUpstream<Int, Never>, PassthroughSubject<Int, Never>>>?
        weak var weakSubject: PassthroughSubject<Int, Never>?
        weak var weakUpstream: CountingUpstream<Int, Never>?
        weak var weakConnection: AnyObject?
        weak var weakSubscription: AnyObject?
        do {
            let upstream = CountingUpstream<Int, Never>()
            let auto = upstream.multicast { () -> PassthroughSubject<Int, Never> in
                let subject = PassthroughSubject<Int, Never>()
                weakSubject = subject
                return subject
            }.autoconnect()
            let catcher = SubscriptionCatcher<Int, Never>()
            auto.subscribe(catcher)
            upstream.send(1)
            #expect(catcher.values == [1])
            weakAuto = auto
            weakUpstream = upstream
            weakConnection = upstream.lastSubscriberObject
            weakSubscription = catcher.subscriptionObject
            #expect(weakConnection != nil)
            catcher.cancel()
        }
        #expect(weakAuto == nil)
        #expect(weakSubject == nil)
        #expect(weakUpstream == nil)
        #expect(weakConnection == nil)
        #expect(weakSubscription == nil)
    }

    @Test func releasingTheAutoconnectWithLiveSubscribersKeepsTheConnection() {
        // Subscribers hold their share of the connection.
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        do {
            upstream.makeConnectable().autoconnect().subscribe(tracker)
        }
        upstream.send(1)
        #expect(tracker.values == [1])
        #expect(upstream.subscription?.isCancelled == false)
        tracker.cancel()
        #expect(upstream.subscription?.isCancelled == true)
    }
}
