import Synchronization
import Testing
import UVCombineCore
import UVCombineTesting

@Suite("Share")
struct ShareTests {
    @Test func upstreamGetsUnlimitedOnFirstSubscriber() {
        let upstream = TestPublisher<Int, Never>()
        let share = upstream.share()
        #expect(upstream.allSubscriptions.isEmpty)
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        share.subscribe(tracker)
        #expect(upstream.allSubscriptions.count == 1)
        #expect(upstream.subscription?.requested == [.unlimited])
        #expect(tracker.history == ["subscription(Multicast)"])
        tracker.cancel()
    }

    @Test func subscriberWithLessDemandHasTheExcessDropped() {
        let upstream = TestPublisher<Int, Never>()
        let share = upstream.share()
        let eager = TrackingSubscriber<Int, Never>()
        let slow = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        share.subscribe(eager)
        share.subscribe(slow)
        upstream.send(1)
        upstream.send(2) // slow has no demand: dropped, not queued
        upstream.send(3)
        slow.request(.max(1))
        upstream.send(4)
        upstream.send(5)
        #expect(eager.values == [1, 2, 3, 4, 5])
        #expect(slow.values == [1, 4])
        #expect(upstream.subscription?.requested == [.unlimited])
        eager.cancel()
        slow.cancel()
    }

    @Test func lateSubscriberSeesOnlyLaterValues() {
        let upstream = PassthroughSubject<Int, Never>()
        let share = upstream.share()
        let early = TrackingSubscriber<Int, Never>()
        share.subscribe(early)
        upstream.send(1)
        upstream.send(2)
        let late = TrackingSubscriber<Int, Never>()
        share.subscribe(late)
        upstream.send(3)
        #expect(early.values == [1, 2, 3])
        #expect(late.values == [3])
        early.cancel()
        late.cancel()
    }

    @Test func afterCompletionNewSubscriberGetsOnlyTheCompletionWithoutResubscribing() {
        let upstream = TestPublisher<Int, TestError>()
        let share = upstream.share()
        let first = TrackingSubscriber<Int, TestError>()
        share.subscribe(first)
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(first.history == ["subscription(Multicast)", "value(1)", "failure(boom)"])

        let late = TrackingSubscriber<Int, TestError>()
        share.subscribe(late)
        #expect(late.history == ["subscription(Multicast)", "failure(boom)"])
        #expect(upstream.allSubscriptions.count == 1)
        #expect(upstream.subscription?.isCancelled == false)
    }

    @Test func shareIsAClassTwoSubscribersShareOneUpstreamSubscription() {
        let upstream = TestPublisher<Int, Never>()
        let mapped = Mutex(0)
        let share = upstream.map { v -> Int in
            mapped.withLock { $0 += 1 }
            return v
        }.share()
        let alias = share
        #expect(alias === share)
        #expect(alias == share)
        let first = TrackingSubscriber<Int, Never>()
        let second = TrackingSubscriber<Int, Never>()
        share.subscribe(first)
        alias.subscribe(second)
        #expect(upstream.allSubscriptions.count == 1)
        upstream.send(7)
        #expect(first.values == [7])
        #expect(second.values == [7])
        #expect(mapped.withLock { $0 } == 1)
        first.cancel()
        second.cancel()
    }

    @Test func twoSharesAreDistinct() {
        let upstream = TestPublisher<Int, Never>()
        let a = upstream.share()
        let b = upstream.share()
        #expect(a != b)
        #expect(a == a)
        let ta = TrackingSubscriber<Int, Never>()
        let tb = TrackingSubscriber<Int, Never>()
        a.subscribe(ta)
        b.subscribe(tb)
        #expect(upstream.allSubscriptions.count == 2)
        ta.cancel()
        tb.cancel()
    }

    @Test func lastCancelCancelsUpstreamAndTheNextSubscriberResubscribes() {
        let upstream = TestPublisher<Int, Never>()
        let share = upstream.share()
        let first = TrackingSubscriber<Int, Never>()
        let second = TrackingSubscriber<Int, Never>()
        share.subscribe(first)
        share.subscribe(second)
        first.cancel()
        #expect(upstream.subscription?.isCancelled == false)
        second.cancel()
        #expect(upstream.subscription?.isCancelled == true)
        let third = TrackingSubscriber<Int, Never>()
        share.subscribe(third)
        #expect(upstream.allSubscriptions.count == 2)
        upstream.send(9)
        #expect(third.values == [9])
        third.cancel()
    }

    @Test func demandMaxOneAtATime() {
        let upstream = TestPublisher<Int, Never>()
        let share = upstream.share()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: { _ in .max(1) })
        share.subscribe(tracker)
        for i in 1...4 { upstream.send(i) }
        #expect(tracker.values == [1, 2, 3, 4])
        tracker.cancel()
    }

    @Test func sinkCancelledThroughAnyCancellable() {
        let upstream = TestPublisher<Int, Never>()
        let share = upstream.share()
        var received: [Int] = []
        let c = share.sink { received.append($0) }
        upstream.send(1)
        c.cancel()
        upstream.send(2)
        #expect(received == [1])
        #expect(upstream.subscription?.isCancelled == true)
    }

    @Test func concurrentSubscribeCancelAndSendLeavesEveryConnectionCancelled() async {
        let upstream = TestPublisher<Int, Never>()
        let share = UncheckedSendableBox(upstream.share())
        let keeper = TrackingSubscriber<Int, Never>()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for i in 0..<20_000 { upstream.send(i) }
            }
            for _ in 0..<3 {
                group.addTask {
                    for _ in 0..<1_000 {
                        let c = share.value.sink { _ in }
                        c.cancel()
                    }
                }
            }
            group.addTask { share.value.subscribe(keeper) }
        }
        // The keeper still holds a share of the connection: exactly one live
        // upstream subscription remains, and it reaches the keeper.
        let live = upstream.allSubscriptions.filter { !$0.isCancelled }
        #expect(live.count == 1)
        let before = keeper.values.count
        upstream.send(-1)
        #expect(keeper.values.count == before + 1)
        keeper.cancel()
        #expect(upstream.allSubscriptions.allSatisfy { $0.isCancelled })
    }

    @Test func everythingDeinitialisesAfterCancel() {
        weak var weakShare: Publishers.Share<CountingUpstream<Int, Never>>?
        weak var weakUpstream: CountingUpstream<Int, Never>?
        weak var weakConnection: AnyObject?
        weak var weakSubscription: AnyObject?
        weak var weakCatcher: SubscriptionCatcher<Int, Never>?
        do {
            let upstream = CountingUpstream<Int, Never>()
            let share = upstream.share()
            let catcher = SubscriptionCatcher<Int, Never>()
            share.subscribe(catcher)
            var received: [Int] = []
            let c = share.sink { received.append($0) }
            upstream.send(1)
            #expect(catcher.values == [1])
            #expect(received == [1])
            weakShare = share
            weakUpstream = upstream
            weakConnection = upstream.lastSubscriberObject
            weakSubscription = catcher.subscriptionObject
            weakCatcher = catcher
            #expect(weakConnection != nil)
            catcher.cancel()
            c.cancel()
        }
        #expect(weakShare == nil)
        #expect(weakUpstream == nil)
        #expect(weakConnection == nil)
        #expect(weakSubscription == nil)
        #expect(weakCatcher == nil)
    }

    @Test func everythingDeinitialisesWhenTheCancellablesAreReleased() {
        weak var weakShare: Publishers.Share<CountingUpstream<Int, Never>>?
        weak var weakUpstream: CountingUpstream<Int, Never>?
        weak var weakConnection: AnyObject?
        do {
            let upstream = CountingUpstream<Int, Never>()
            let share = upstream.share()
            var storage = Set<AnyCancellable>()
            share.sink { _ in }.store(in: &storage)
            share.sink { _ in }.store(in: &storage)
            upstream.send(1)
            weakShare = share
            weakUpstream = upstream
            weakConnection = upstream.lastSubscriberObject
        }
        #expect(weakShare == nil)
        #expect(weakUpstream == nil)
        #expect(weakConnection == nil)
    }
}
