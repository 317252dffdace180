import Testing
import UVCombineCore

/// Combine's rules for `multicast`, `share` and `autoconnect`: late
/// subscribers, `request(.none)`, and what is released when.
@Suite("Connectables follow Combine")
struct ConnectableRulesTests {
    // Combine's Multicast passes a subscriber's request on to the subject's
    // subscription, which asserts a non-zero demand (OpenCombine's
    // reconstruction; `share()` is `multicast(PassthroughSubject)`): a late
    // subscriber's `request(.none)` traps while the subject is live.
    @Test func lateMulticastSubscriberTrapsOnRequestNone() async {
        await #expect(processExitsWith: .failure) {
            let subject = PassthroughSubject<Int, Never>()
            let multicast = subject.multicast { PassthroughSubject<Int, Never>() }
            let connection = multicast.connect()
            let late = CompatKeepingSubscriber<Int, Never>(initialDemand: .none)
            multicast.subscribe(late)
            late.subscription?.request(.none)
            connection.cancel()
        }
    }

    @Test func lateShareSubscriberTrapsOnRequestNone() async {
        await #expect(processExitsWith: .failure) {
            let subject = PassthroughSubject<Int, Never>()
            let shared = subject.share()
            let token = shared.sink { _ in }
            let late = CompatKeepingSubscriber<Int, Never>(initialDemand: .none)
            shared.subscribe(late)
            late.subscription?.request(.none)
            token.cancel()
        }
    }

    @Test func lateMulticastSubscriberGetsOnlyLaterValues() throws {
        let subject = PassthroughSubject<Int, Never>()
        let multicast = subject.multicast { PassthroughSubject<Int, Never>() }
        let early = CompatKeepingSubscriber<Int, Never>()
        multicast.subscribe(early)
        let connection = multicast.connect()
        subject.send(1)
        let late = CompatKeepingSubscriber<Int, Never>(initialDemand: .none)
        multicast.subscribe(late)
        subject.send(2)
        try #require(late.subscription).request(.max(1))
        subject.send(3)
        #expect(early.events == ["subscription(Multicast)", "value(1)", "value(2)", "value(3)"])
        #expect(late.events == ["subscription(Multicast)", "value(3)"])
        connection.cancel()
    }

    @Test func multicastSubscriberIsReleasedOnCancelAndOnCompletion() {
        let subject = PassthroughSubject<Int, Never>()
        let multicast = subject.multicast(subject: PassthroughSubject<Int, Never>())
        let connection = multicast.connect()
        weak var weakCancelled: CompatKeepingSubscriber<Int, Never>?
        weak var weakFinished: CompatKeepingSubscriber<Int, Never>?
        do {
            let cancelled = CompatKeepingSubscriber<Int, Never>()
            let finished = CompatKeepingSubscriber<Int, Never>()
            weakCancelled = cancelled
            weakFinished = finished
            multicast.subscribe(cancelled)
            multicast.subscribe(finished)
            subject.send(1)
            cancelled.subscription?.cancel()
        }
        #expect(weakCancelled == nil)
        #expect(weakFinished != nil)
        subject.send(completion: .finished)
        #expect(weakFinished == nil)
        connection.cancel()
    }

    @Test func cancelFromInsideAValueReleasesAfterTheDelivery() {
        final class SelfCancelling: Subscriber, @unchecked Sendable {
            var subscription: (any Subscription)?
            var received: [Int] = []
            func receive(subscription: any Subscription) {
                self.subscription = subscription
                subscription.request(.unlimited)
            }
            func receive(_ input: Int) -> Subscribers.Demand {
                subscription?.cancel()
                received.append(input) // still alive after its own cancel
                return .none
            }
            func receive(completion: Subscribers.Completion<Never>) {}
        }
        let subject = PassthroughSubject<Int, Never>()
        let shared = subject.share()
        weak var weakSubscriber: SelfCancelling?
        do {
            let subscriber = SelfCancelling()
            weakSubscriber = subscriber
            shared.subscribe(subscriber)
            subject.send(1)
            subject.send(2)
            #expect(subscriber.received == [1])
            subscriber.subscription = nil
        }
        #expect(weakSubscriber == nil)
    }

    @Test func autoconnectReentranceConnectsAgainAsCombine() {
        final class Connectable: ConnectablePublisher {
            typealias Output = Int
            typealias Failure = Never
            let subject = PassthroughSubject<Int, Never>()
            var log: [String] = []
            struct Connection: Cancellable {
                let onCancel: () -> Void
                func cancel() { onCancel() }
            }
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
                subject.subscribe(subscriber)
            }
            func connect() -> any Cancellable {
                log.append("connect")
                return Connection { [weak self] in self?.log.append("disconnect") }
            }
        }
        let upstream = Connectable()
        let auto = upstream.autoconnect()
        let first = CompatKeepingSubscriber<Int, Never>()
        let second = AnySubscriber<Int, Never>(receiveSubscription: { subscription in
            auto.subscribe(first)
            subscription.request(.unlimited)
        })
        auto.subscribe(second)
        #expect(upstream.log == ["connect", "connect"])
        first.subscription?.cancel()
        #expect(upstream.log == ["connect", "connect", "disconnect"])
    }
}
