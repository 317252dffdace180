import Synchronization
import UVCombineCore
import UVCombineTesting

/// A subscriber that keeps its subscription until it cancels and lets a
/// test observe the subscription object weakly (to prove it deinitialises).
final class SubscriptionCatcher<Input, Failure: Error>: Subscriber, Cancellable {
    private(set) var subscription: (any Subscription)?
    weak var subscriptionObject: AnyObject?
    private(set) var values: [Input] = []
    private(set) var completion: Subscribers.Completion<Failure>?
    let initialDemand: Subscribers.Demand

    init(initialDemand: Subscribers.Demand = .unlimited) {
        self.initialDemand = initialDemand
    }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        subscriptionObject = subscription as AnyObject
        if initialDemand != .none { subscription.request(initialDemand) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        values.append(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        self.completion = completion
        subscription = nil
    }

    func cancel() {
        let subscription = self.subscription
        self.subscription = nil
        subscription?.cancel()
    }
}

/// An upstream that forwards to a ``PassthroughSubject``, counts its
/// subscribers and observes the class-based ones weakly.
final class CountingUpstream<Output, Failure: Error>: Publisher {
    let subject = PassthroughSubject<Output, Failure>()
    private(set) var subscribeCount = 0
    weak var lastSubscriberObject: AnyObject?

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subscribeCount += 1
        if S.self is AnyClass { lastSubscriberObject = subscriber as AnyObject }
        subject.subscribe(subscriber)
    }

    func send(_ value: Output) { subject.send(value) }
    func send(completion: Subscribers.Completion<Failure>) { subject.send(completion: completion) }
}

/// A subject that wraps a ``PassthroughSubject`` and records the upstream
/// subscriptions it is given.
final class RecordingSubject<Output, Failure: Error>: Subject {
    let inner = PassthroughSubject<Output, Failure>()
    private(set) var upstreamSubscriptionNames: [String] = []

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        inner.subscribe(subscriber)
    }
    func send(_ value: Output) { inner.send(value) }
    func send(completion: Subscribers.Completion<Failure>) { inner.send(completion: completion) }
    func send(subscription: any Subscription) {
        upstreamSubscriptionNames.append(String(describing: subscription))
        inner.send(subscription: subscription)
    }
}
