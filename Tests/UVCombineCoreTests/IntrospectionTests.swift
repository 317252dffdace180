import Synchronization
import Testing
import UVCombineCore

/// Combine's `_Introspection` hooks: no-op defaults, enable/disable, and
/// the hooks called around subscribe, values, completion, request, cancel.
@Suite("Introspection", .serialized)
struct IntrospectionTests {
    /// Records the events of one subscriber (other tests may subscribe
    /// while this one is enabled; their events are ignored).
    final class Recorder: _Introspection, @unchecked Sendable {
        let watched: CombineIdentifier
        let watchedSubscription = Mutex<CombineIdentifier?>(nil)
        let log = Mutex<[String]>([])
        init(watching id: CombineIdentifier) { watched = id }

        func willReceive<P: Publisher, S: Subscriber>(publisher: P, subscriber: S)
            where P.Failure == S.Failure, P.Output == S.Input {
            if subscriber.combineIdentifier == watched { log.withLock { $0.append("willSubscribe \(publisher)") } }
        }
        func didReceive<P: Publisher, S: Subscriber>(publisher: P, subscriber: S)
            where P.Failure == S.Failure, P.Output == S.Input {
            if subscriber.combineIdentifier == watched { log.withLock { $0.append("didSubscribe") } }
        }
        func willReceive<S: Subscriber>(subscriber: S, subscription: any Subscription) {
            guard subscriber.combineIdentifier == watched else { return }
            watchedSubscription.withLock { $0 = subscription.combineIdentifier }
            log.withLock { $0.append("willReceive subscription \(subscription)") }
        }
        func willReceive<S: Subscriber>(subscriber: S, input: S.Input) {
            if subscriber.combineIdentifier == watched { log.withLock { $0.append("willReceive \(input)") } }
        }
        func didReceive<S: Subscriber>(subscriber: S, input: S.Input, resultingDemand: Subscribers.Demand) {
            if subscriber.combineIdentifier == watched { log.withLock { $0.append("didReceive \(input) -> \(resultingDemand)") } }
        }
        func didReceive<S: Subscriber>(subscriber: S, completion: Subscribers.Completion<S.Failure>) {
            if subscriber.combineIdentifier == watched { log.withLock { $0.append("completion") } }
        }
        func willRequest(subscription: any Subscription, _ demand: Subscribers.Demand) {
            if watchedSubscription.withLock({ $0 }) == subscription.combineIdentifier {
                log.withLock { $0.append("request \(demand)") }
            }
        }
        func willCancel(subscription: any Subscription) {
            if watchedSubscription.withLock({ $0 }) == subscription.combineIdentifier {
                log.withLock { $0.append("cancel") }
            }
        }
    }

    /// Implements nothing: every hook has a default.
    final class Nothing: _Introspection {}

    @Test func enableAndDisable() {
        let nothing = Nothing()
        #expect(!nothing.isEnabled)
        nothing.enable()
        nothing.enable()
        #expect(nothing.isEnabled)
        nothing.disable()
        #expect(!nothing.isEnabled)
    }

    @Test func hooksAreCalledAroundSubscriptionValuesRequestsAndCancel() {
        let subscriber = CompatKeepingSubscriber<Int, Never>(initialDemand: .max(1))
        let recorder = Recorder(watching: subscriber.combineIdentifier)
        let subject = PassthroughSubject<Int, Never>()
        recorder.enable()
        subject.subscribe(subscriber)
        subject.send(1)
        subscriber.subscription?.cancel()
        recorder.disable()
        subject.send(2)
        #expect(recorder.log.withLock { $0 } == [
            "willSubscribe PassthroughSubject",
            "willReceive subscription PassthroughSubject",
            "request max(1)",
            "didSubscribe",
            "willReceive 1",
            "didReceive 1 -> max(0)",
            "cancel",
        ])
        #expect(String(describing: subscriber.subscription!) == "PassthroughSubject")
    }

    @Test func nothingIsReportedWhileDisabled() {
        let subscriber = CompatKeepingSubscriber<Int, Never>()
        let recorder = Recorder(watching: subscriber.combineIdentifier)
        Just(1).subscribe(subscriber)
        #expect(recorder.log.withLock { $0 }.isEmpty)
    }

    /// Subscribing through an `AnyPublisher` reports each event once: the
    /// erasing wrapper is not a second subscriber to report.
    @Test func anAnyPublisherReportsEachEventOnce() {
        let subscriber = CompatKeepingSubscriber<Int, Never>(initialDemand: .max(1))
        let recorder = Recorder(watching: subscriber.combineIdentifier)
        let subject = PassthroughSubject<Int, Never>()
        recorder.enable()
        subject.eraseToAnyPublisher().subscribe(subscriber)
        subject.send(1)
        subscriber.subscription?.cancel()
        recorder.disable()
        #expect(recorder.log.withLock { $0 } == [
            "willSubscribe AnyPublisher",
            "willReceive subscription PassthroughSubject",
            "request max(1)",
            "didSubscribe",
            "willReceive 1",
            "didReceive 1 -> max(0)",
            "cancel",
        ])
    }

    @Test func anAnyPublisherOverJustReportsEachEventOnce() {
        let subscriber = CompatKeepingSubscriber<Int, Never>()
        let recorder = Recorder(watching: subscriber.combineIdentifier)
        recorder.enable()
        Just(1).eraseToAnyPublisher().subscribe(subscriber)
        recorder.disable()
        #expect(recorder.log.withLock { $0 } == [
            "willSubscribe AnyPublisher",
            "willReceive subscription Just",
            "request unlimited",
            "willReceive 1",
            "didReceive 1 -> max(0)",
            "completion",
            "didSubscribe",
        ])
    }

    /// A publisher of the kind third-party code writes: it hands its
    /// subscriber on with `subscribe`, not `receive(subscriber:)`.
    struct Forwarding<Upstream: Publisher>: Publisher {
        typealias Output = Upstream.Output
        typealias Failure = Upstream.Failure
        let upstream: Upstream
        func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(subscriber)
        }
    }

    /// Through an `AnyPublisher`, the subscriber arrives wrapped in an
    /// `AnySubscriber`; subscribing it again must not report its events twice.
    @Test func aForwardingPublisherBehindAnAnyPublisherReportsEachEventOnce() {
        let subscriber = CompatKeepingSubscriber<Int, Never>(initialDemand: .max(1))
        let recorder = Recorder(watching: subscriber.combineIdentifier)
        let subject = PassthroughSubject<Int, Never>()
        recorder.enable()
        Forwarding(upstream: subject).eraseToAnyPublisher().subscribe(subscriber)
        subject.send(1)
        subscriber.subscription?.cancel()
        recorder.disable()
        #expect(recorder.log.withLock { $0 } == [
            "willSubscribe AnyPublisher",
            "willSubscribe PassthroughSubject",
            "willReceive subscription PassthroughSubject",
            "request max(1)",
            "didSubscribe",
            "didSubscribe",
            "willReceive 1",
            "didReceive 1 -> max(0)",
            "cancel",
        ])
    }
}
