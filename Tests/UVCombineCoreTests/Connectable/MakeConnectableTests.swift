import Testing
import UVCombineCore
import UVCombineTesting

@Suite("MakeConnectable")
struct MakeConnectableTests {
    @Test func nothingFlowsBeforeConnect() {
        let connectable = [1, 2, 3].publisher.makeConnectable()
        let first = TrackingSubscriber<Int, Never>()
        let second = TrackingSubscriber<Int, Never>()
        connectable.subscribe(first)
        connectable.subscribe(second)
        #expect(first.history == ["subscription(Multicast)"])
        #expect(second.history == ["subscription(Multicast)"])
        let connection = connectable.connect()
        let expected = ["subscription(Multicast)", "value(1)", "value(2)", "value(3)", "finished"]
        #expect(first.history == expected)
        #expect(second.history == expected)
        connection.cancel()
    }

    @Test func upstreamSubscribedOnlyAtConnectWithUnlimitedDemand() {
        let upstream = TestPublisher<Int, Never>()
        let connectable = upstream.makeConnectable()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        connectable.subscribe(tracker)
        #expect(upstream.allSubscriptions.isEmpty)
        let connection = connectable.connect()
        #expect(upstream.allSubscriptions.count == 1)
        #expect(upstream.subscription?.requested == [.unlimited])
        connection.cancel()
    }

    @Test func cancellingTheConnectionStopsUpstream() {
        let upstream = TestPublisher<Int, Never>()
        let connectable = upstream.makeConnectable()
        let tracker = TrackingSubscriber<Int, Never>()
        connectable.subscribe(tracker)
        let connection = connectable.connect()
        upstream.send(1)
        connection.cancel()
        #expect(upstream.subscription?.isCancelled == true)
        upstream.send(2)
        #expect(tracker.values == [1])
        // The subscriber is not completed by a cancelled connection.
        #expect(tracker.completion == nil)
    }

    @Test func releasedConnectionCancels() {
        let upstream = TestPublisher<Int, Never>()
        let connectable = upstream.makeConnectable()
        do {
            let connection = connectable.connect()
            #expect(upstream.subscription?.isCancelled == false)
            _ = connection
        }
        #expect(upstream.subscription?.isCancelled == true)
    }

    @Test func copiesShareOneSubject() {
        let upstream = TestPublisher<Int, Never>()
        let connectable = upstream.makeConnectable()
        let copy = connectable
        let tracker = TrackingSubscriber<Int, Never>()
        copy.subscribe(tracker)
        let connection = connectable.connect()
        upstream.send(3)
        #expect(tracker.values == [3])
        connection.cancel()
    }

    @Test func everythingDeinitialisesAfterCancel() {
        weak var weakUpstream: CountingUpstream<Int, Never>?
        weak var weakConnection: AnyObject?
        weak var weakSubscription: AnyObject?
        do {
            let upstream = CountingUpstream<Int, Never>()
            let connectable = upstream.makeConnectable()
            let catcher = SubscriptionCatcher<Int, Never>()
            connectable.subscribe(catcher)
            let connection = connectable.connect()
            upstream.send(1)
            #expect(catcher.values == [1])
            weakUpstream = upstream
            weakConnection = upstream.lastSubscriberObject
            weakSubscription = catcher.subscriptionObject
            #expect(weakConnection != nil)
            catcher.cancel()
            connection.cancel()
        }
        #expect(weakUpstream == nil)
        #expect(weakConnection == nil)
        #expect(weakSubscription == nil)
    }
}
