import Testing
import UVCombineCore
import UVCombineTesting

/// The fused `share()` keeps its connection and the connection keeps the
/// share: these pin that the cycle ends whenever Combine's chain would let
/// go, and that the subscriber count is exact.
@Suite("Share: connection lifecycle")
struct ShareLifecycleTests {
    @Test func aSynchronousUpstreamCompletesInsideConnectAndNothingStays() {
        weak var weakShare: Publishers.Share<Publishers.Sequence<[Int], Never>>?
        var received: [Int] = []
        var completions = 0
        do {
            let share = [1, 2, 3].publisher.share()
            weakShare = share
            let c = share.sink(receiveCompletion: { _ in completions += 1 }, receiveValue: { received.append($0) })
            // A late subscriber: the completion only, no new subscription
            // to the upstream (which would deliver 1, 2, 3 again).
            let late = TrackingSubscriber<Int, Never>()
            share.subscribe(late)
            #expect(late.history == ["subscription(Multicast)", "finished"])
            _ = c
        }
        #expect(received == [1, 2, 3])
        #expect(completions == 1)
        #expect(weakShare == nil, "the share is released with its last reference after the upstream completed")
    }

    @Test func reconnectingAfterTheLastCancelLeavesNoOldConnectionBehind() {
        weak var weakShare: Publishers.Share<CountingUpstream<Int, Never>>?
        weak var weakConnection: AnyObject?
        let upstream = CountingUpstream<Int, Never>()
        do {
            let share = upstream.share()
            weakShare = share
            for round in 0..<3 {
                let tracker = TrackingSubscriber<Int, Never>()
                share.subscribe(tracker)
                upstream.send(round)
                #expect(tracker.values == [round])
                weakConnection = upstream.lastSubscriberObject
                tracker.cancel()
                #expect(weakConnection == nil, "round \(round): the cancelled connection is released")
            }
            #expect(upstream.subscribeCount == 3)
        }
        // An upstream that releases its subscriber on cancel, as Combine's
        // rules ask, releases the share with it (docs/combine-compatibility.md).
        #expect(weakShare == nil, "no connection kept the share after each disconnect")
    }

    @Test func aSubscriptionCancelledTwiceCountsOutOnce() {
        let upstream = TestPublisher<Int, Never>()
        let share = upstream.share()
        let first = KeepingSubscriber<Int, Never>()
        let second = TrackingSubscriber<Int, Never>()
        share.subscribe(first)
        share.subscribe(second)
        first.subscription?.cancel()
        first.subscription?.cancel()
        #expect(upstream.subscription?.isCancelled == false, "second still holds the connection")
        upstream.send(7)
        #expect(second.values == [7])
        #expect(first.values.isEmpty)
        second.cancel()
        #expect(upstream.subscription?.isCancelled == true)
    }

    @Test func aFailureReachesEverySubscriberAndLaterOnesGetItAtOnce() {
        struct Boom: Error, Equatable {}
        let upstream = TestPublisher<Int, Boom>()
        let share = upstream.share()
        let a = TrackingSubscriber<Int, Boom>()
        let b = TrackingSubscriber<Int, Boom>()
        share.subscribe(a)
        share.subscribe(b)
        upstream.send(1)
        upstream.send(completion: .failure(Boom()))
        let late = TrackingSubscriber<Int, Boom>()
        share.subscribe(late)
        #expect(a.values == [1] && b.values == [1])
        #expect(a.completion == .failure(Boom()) && b.completion == .failure(Boom()))
        #expect(late.completion == .failure(Boom()))
        #expect(upstream.allSubscriptions.count == 1, "a completed share never subscribes again")
    }

    @Test func aSubscriberThatSubscribesAnotherFromItsSubscriptionConnectsOnce() {
        let upstream = TestPublisher<Int, Never>()
        let share = upstream.share()
        let inner = TrackingSubscriber<Int, Never>()
        let outer = KeepingSubscriber<Int, Never>(onSubscribe: { share.subscribe(inner) })
        share.subscribe(outer)
        // As Combine's autoconnect: the subscriber attached from inside the
        // first one's subscription (before the first connection exists)
        // connects too; the connection made last is kept.
        #expect(upstream.allSubscriptions.filter { !$0.isCancelled }.count == 1)
        upstream.send(5)
        #expect(outer.values == [5])
        #expect(inner.values == [5])
        outer.subscription?.cancel()
        inner.cancel()
        #expect(upstream.allSubscriptions.allSatisfy { $0.isCancelled })
    }
}

/// Keeps its subscription (as a subscriber may) and records values; runs
/// `onSubscribe` before requesting.
private final class KeepingSubscriber<Input, Failure: Error>: Subscriber {
    private(set) var subscription: (any Subscription)?
    private(set) var values: [Input] = []
    private let onSubscribe: () -> Void

    init(onSubscribe: @escaping () -> Void = {}) {
        self.onSubscribe = onSubscribe
    }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        onSubscribe()
        subscription.request(.unlimited)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        values.append(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {}
}
