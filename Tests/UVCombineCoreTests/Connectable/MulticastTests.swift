import Synchronization
import Testing
import UVCombineCore
import UVCombineTesting

@Suite("Multicast")
struct MulticastTests {
    @Test func nothingFlowsBeforeConnect() {
        let upstream = TestPublisher<Int, Never>()
        let multicast = upstream.multicast(subject: PassthroughSubject<Int, Never>())
        let tracker = TrackingSubscriber<Int, Never>()
        multicast.subscribe(tracker)
        #expect(upstream.allSubscriptions.isEmpty)
        #expect(tracker.history == ["subscription(Multicast)"])

        let connection = multicast.connect()
        #expect(upstream.allSubscriptions.count == 1)
        #expect(upstream.subscription?.requested == [.unlimited])
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(Multicast)", "value(1)", "value(2)", "finished"])
        connection.cancel()
    }

    @Test func everySubscriberGetsEachValueOnce() {
        let upstream = PassthroughSubject<Int, Never>()
        let mapped = Mutex(0)
        let multicast = upstream.map { v -> Int in
            mapped.withLock { $0 += 1 }
            return v * 10
        }.multicast { PassthroughSubject<Int, Never>() }
        let first = TrackingSubscriber<Int, Never>()
        let second = TrackingSubscriber<Int, Never>()
        multicast.subscribe(first)
        multicast.subscribe(second)
        let connection = multicast.connect()
        upstream.send(1)
        upstream.send(2)
        #expect(first.values == [10, 20])
        #expect(second.values == [10, 20])
        #expect(mapped.withLock { $0 } == 2)
        connection.cancel()
    }

    @Test func cancellingTheConnectionCancelsUpstream() {
        let upstream = TestPublisher<Int, Never>()
        let multicast = upstream.multicast(subject: PassthroughSubject<Int, Never>())
        let tracker = TrackingSubscriber<Int, Never>()
        multicast.subscribe(tracker)
        let connection = multicast.connect()
        upstream.send(1)
        connection.cancel()
        #expect(upstream.subscription?.isCancelled == true)
        upstream.send(2) // a misbehaving upstream: must not get through
        #expect(tracker.history == ["subscription(Multicast)", "value(1)"])
        connection.cancel()
        #expect(upstream.subscription?.cancelCount == 1)
    }

    @Test func connectionMustBeKeptReleasingItCancels() {
        let upstream = TestPublisher<Int, Never>()
        let multicast = upstream.makeConnectable()
        let tracker = TrackingSubscriber<Int, Never>()
        multicast.subscribe(tracker)
        _ = multicast.connect() // released at once
        #expect(upstream.subscription?.isCancelled == true)
        upstream.send(1)
        #expect(tracker.values == [])
        #expect(multicast.connect() is AnyCancellable)
    }

    @Test func connectTwiceMakesTwoConnectionsAsInCombine() {
        // Combine's Multicast subscribes the subject to the upstream on every
        // connect(); each connection delivers, and each cancels on its own.
        let upstream = CountingUpstream<Int, Never>()
        let multicast = upstream.multicast(subject: PassthroughSubject<Int, Never>())
        let tracker = TrackingSubscriber<Int, Never>()
        multicast.subscribe(tracker)
        let connection1 = multicast.connect()
        let connection2 = multicast.connect()
        #expect(upstream.subscribeCount == 2)
        upstream.send(42)
        #expect(tracker.values == [42, 42])
        connection1.cancel()
        upstream.send(7)
        #expect(tracker.values == [42, 42, 7])
        connection2.cancel()
        upstream.send(8)
        #expect(tracker.values == [42, 42, 7])
    }

    @Test func reconnectAfterCancelUsesTheSameSubject() {
        let upstream = PassthroughSubject<Int, Never>()
        let multicast = upstream.multicast { PassthroughSubject<Int, Never>() }
        let tracker = TrackingSubscriber<Int, Never>()
        multicast.subscribe(tracker)
        var connection = multicast.connect()
        upstream.send(1)
        connection.cancel()
        upstream.send(2)
        connection = multicast.connect()
        upstream.send(3)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(Multicast)", "value(1)", "value(3)", "finished"])
        connection.cancel()
    }

    @Test func demandMaxOneAtATime() {
        let upstream = PassthroughSubject<Int, Never>()
        let multicast = upstream.makeConnectable()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: { _ in .max(1) })
        multicast.subscribe(tracker)
        let connection = multicast.connect()
        for i in 1...5 { upstream.send(i) }
        #expect(tracker.values == [1, 2, 3, 4, 5])
        connection.cancel()
    }

    @Test func exactlyOneValuePerRequestExcessDropped() {
        let upstream = TestPublisher<Int, Never>()
        let multicast = upstream.makeConnectable()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        multicast.subscribe(tracker)
        let connection = multicast.connect()
        #expect(upstream.subscription?.requested == [.unlimited])
        upstream.send(1)
        upstream.send(2)
        tracker.request(.max(1))
        upstream.send(3)
        upstream.send(4)
        #expect(tracker.values == [1, 3])
        connection.cancel()
    }

    @Test func failureReachesEverySubscriber() {
        let upstream = PassthroughSubject<Int, TestError>()
        let multicast = upstream.multicast(subject: PassthroughSubject<Int, TestError>())
        let first = TrackingSubscriber<Int, TestError>()
        let second = TrackingSubscriber<Int, TestError>()
        multicast.subscribe(first)
        multicast.subscribe(second)
        let connection = multicast.connect()
        upstream.send(completion: .failure(.boom))
        #expect(first.history == ["subscription(Multicast)", "failure(boom)"])
        #expect(second.history == ["subscription(Multicast)", "failure(boom)"])
        connection.cancel()
    }

    @Test func subscriberAfterCompletionGetsOnlyTheCompletion() {
        let upstream = PassthroughSubject<Int, Never>()
        let multicast = upstream.makeConnectable()
        let connection = multicast.connect()
        upstream.send(completion: .finished)
        let late = TrackingSubscriber<Int, Never>()
        multicast.subscribe(late)
        #expect(late.history == ["subscription(Multicast)", "finished"])
        connection.cancel()
    }

    @Test func createSubjectRunsOnce() {
        let created = Mutex(0)
        let multicast = PassthroughSubject<Int, Never>().multicast { () -> PassthroughSubject<Int, Never> in
            created.withLock { $0 += 1 }
            return PassthroughSubject()
        }
        #expect(created.withLock { $0 } == 0)
        multicast.subscribe(TrackingSubscriber<Int, Never>())
        multicast.subscribe(TrackingSubscriber<Int, Never>())
        let connection = multicast.connect()
        #expect(created.withLock { $0 } == 1)
        connection.cancel()
    }

    @Test func descriptionsMatchCombine() {
        let upstream = PassthroughSubject<Int, Never>()
        let subject = RecordingSubject<Int, Never>()
        let multicast = upstream.multicast(subject: subject)
        let tracker = TrackingSubscriber<Int, Never>()
        multicast.subscribe(tracker)
        let connection = multicast.connect()
        #expect(tracker.subscriptionNames == ["Multicast"])
        #expect(subject.upstreamSubscriptionNames == ["Subject"])
        connection.cancel()
    }

    @Test func downstreamDemandFromReceiveIsRequestedFromTheSubject() {
        let upstream = PassthroughSubject<Int, Never>()
        let multicast = upstream.makeConnectable()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: { $0 == 1 ? .max(2) : .none })
        multicast.subscribe(tracker)
        let connection = multicast.connect()
        for i in 1...5 { upstream.send(i) }
        #expect(tracker.values == [1, 2, 3])
        connection.cancel()
    }

    @Test func cancelledSubscriberStopsReceivingOthersContinue() {
        let upstream = PassthroughSubject<Int, Never>()
        let multicast = upstream.makeConnectable()
        let first = TrackingSubscriber<Int, Never>()
        let second = TrackingSubscriber<Int, Never>()
        multicast.subscribe(first)
        multicast.subscribe(second)
        let connection = multicast.connect()
        upstream.send(1)
        first.cancel()
        upstream.send(2)
        #expect(first.values == [1])
        #expect(second.values == [1, 2])
        connection.cancel()
    }

    @Test func releasingTheSubjectCancelsTheConnectionAsInCombine() {
        // Combine's connection holds the subject weakly.
        let upstream = TestPublisher<Int, Never>()
        weak var weakSubject: PassthroughSubject<Int, Never>?
        var connection: (any Cancellable)?
        do {
            let subject = PassthroughSubject<Int, Never>()
            weakSubject = subject
            connection = upstream.multicast(subject: subject).connect()
        }
        #expect(weakSubject == nil)
        #expect(upstream.subscription?.isCancelled == true)
        connection?.cancel()
    }

    @Test func everythingDeinitialisesAfterCancel() {
        weak var weakMulticast: Publishers.Multicast<CountingUpstream<Int, Never>, PassthroughSubject<Int, Never>>?
        weak var weakSubject: PassthroughSubject<Int, Never>?
        weak var weakUpstream: CountingUpstream<Int, Never>?
        weak var weakConnection: AnyObject?
        weak var weakInner: AnyObject?
        weak var weakCatcher: SubscriptionCatcher<Int, Never>?
        var connection: (any Cancellable)?
        do {
            let upstream = CountingUpstream<Int, Never>()
            let multicast = upstream.multicast { () -> PassthroughSubject<Int, Never> in
                let subject = PassthroughSubject<Int, Never>()
                weakSubject = subject
                return subject
            }
            let catcher = SubscriptionCatcher<Int, Never>()
            multicast.subscribe(catcher)
            connection = multicast.connect()
            upstream.send(1)
            #expect(catcher.values == [1])
            weakMulticast = multicast
            weakUpstream = upstream
            weakConnection = upstream.lastSubscriberObject
            weakInner = catcher.subscriptionObject
            weakCatcher = catcher
            #expect(weakConnection != nil)
            #expect(weakInner != nil)
            catcher.cancel()
            connection?.cancel()
        }
        connection = nil
        #expect(weakMulticast == nil)
        #expect(weakSubject == nil)
        #expect(weakUpstream == nil)
        #expect(weakConnection == nil)
        #expect(weakInner == nil)
        #expect(weakCatcher == nil)
    }

    @Test func everythingDeinitialisesAfterCompletion() {
        weak var weakSubject: PassthroughSubject<Int, Never>?
        weak var weakConnection: AnyObject?
        weak var weakInner: AnyObject?
        let catcher = SubscriptionCatcher<Int, Never>()
        do {
            let upstream = CountingUpstream<Int, Never>()
            let subject = PassthroughSubject<Int, Never>()
            weakSubject = subject
            let multicast = upstream.multicast(subject: subject)
            multicast.subscribe(catcher)
            let connection = multicast.connect()
            weakConnection = upstream.lastSubscriberObject
            weakInner = catcher.subscriptionObject
            upstream.send(completion: .finished)
            _ = connection
        }
        #expect(catcher.completion == .finished)
        #expect(weakSubject == nil)
        #expect(weakConnection == nil)
        #expect(weakInner == nil)
    }
}
