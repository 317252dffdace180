import Synchronization
import UVCombineCore
import UVCombineTesting

// `TestError` (.boom, .other) is declared in SubjectTests.swift.

/// Cancels a subscriber from inside a callback.
final class CancelBox: @unchecked Sendable {
    var target: (any Cancellable)?
    func cancel() { target?.cancel() }
}

/// A subscriber that holds its subscription until told to cancel and
/// release it, and keeps only a weak reference afterwards, so tests can
/// check that an operator's subscription deinitialises.
final class SubscriptionProbe<Input, Failure: Error>: Subscriber, @unchecked Sendable {
    private let lock = Mutex(())
    private var subscription: (any Subscription)?
    private(set) weak var weakSubscription: AnyObject?
    private(set) var subscriptionDescription = ""
    private(set) var values: [Input] = []
    private(set) var completion: Subscribers.Completion<Failure>?
    let initialDemand: Subscribers.Demand

    init(initialDemand: Subscribers.Demand = .unlimited) {
        self.initialDemand = initialDemand
    }

    func receive(subscription: any Subscription) {
        lock.withLock { _ in
            self.subscription = subscription
            weakSubscription = subscription as AnyObject
            subscriptionDescription = String(describing: subscription)
        }
        if initialDemand != .none { subscription.request(initialDemand) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        lock.withLock { _ in values.append(input) }
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        lock.withLock { _ in
            self.completion = completion
            subscription = nil
        }
    }

    func request(_ demand: Subscribers.Demand) {
        lock.withLock { _ in subscription }?.request(demand)
    }

    func cancelAndRelease() {
        let taken = lock.withLock { _ -> (any Subscription)? in
            let s = subscription
            subscription = nil
            return s
        }
        taken?.cancel()
    }
}
