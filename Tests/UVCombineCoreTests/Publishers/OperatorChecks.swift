import Testing
import UVCombineCore
import UVCombineTesting

/// Contract checks every operator must pass, written once. Each takes a
/// closure that applies the operator to an upstream of `Int`s.
enum OperatorChecks {
    /// Cancelling the operator's subscription cancels the upstream exactly
    /// once; a second cancel and later requests are not forwarded, and
    /// values sent afterwards are not delivered.
    static func cancelReachesUpstream<P: Publisher>(
        _ make: (TestPublisher<Int, TestError>) -> P,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = ManualSubscriber<P.Output, P.Failure>()
        make(upstream).subscribe(subscriber)
        subscriber.subscription?.request(.max(1))
        let requestedBeforeCancel = upstream.subscription?.requested ?? []
        subscriber.subscription?.cancel()
        subscriber.subscription?.cancel()
        subscriber.subscription?.request(.max(1))
        #expect(upstream.subscription?.cancelCount == 1, sourceLocation: sourceLocation)
        #expect(upstream.subscription?.requested == requestedBeforeCancel, sourceLocation: sourceLocation)
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(subscriber.values.isEmpty, sourceLocation: sourceLocation)
        #expect(subscriber.completions.isEmpty, sourceLocation: sourceLocation)
    }

    /// After the downstream cancels, nothing keeps the downstream alive:
    /// the operator's subscription and the subscriber are released.
    static func cancelReleasesTheChain<P: Publisher>(
        _ make: (PassthroughSubject<Int, TestError>) -> P,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let subject = PassthroughSubject<Int, TestError>()
        weak var weakTracker: TrackingSubscriber<P.Output, P.Failure>?
        do {
            let tracker = TrackingSubscriber<P.Output, P.Failure>()
            weakTracker = tracker
            make(subject).subscribe(tracker)
            subject.send(1)
            tracker.cancel()
        }
        #expect(weakTracker == nil, sourceLocation: sourceLocation)
    }

    /// After the upstream completes, the chain is released too.
    static func completionReleasesTheChain<P: Publisher>(
        _ make: (PassthroughSubject<Int, TestError>) -> P,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let subject = PassthroughSubject<Int, TestError>()
        weak var weakTracker: TrackingSubscriber<P.Output, P.Failure>?
        do {
            let tracker = TrackingSubscriber<P.Output, P.Failure>()
            weakTracker = tracker
            make(subject).subscribe(tracker)
            subject.send(1)
            subject.send(completion: .finished)
            #expect(tracker.completion != nil, sourceLocation: sourceLocation)
        }
        #expect(weakTracker == nil, sourceLocation: sourceLocation)
    }

    /// A second subscription offered by the upstream is cancelled; the
    /// first stays.
    static func secondSubscriptionIsCancelled<P: Publisher>(
        _ make: (SubscribesTwice<Int>) -> P,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let twice = SubscribesTwice<Int>()
        let tracker = TrackingSubscriber<P.Output, P.Failure>()
        make(twice).subscribe(tracker)
        #expect(twice.extra.isCancelled, sourceLocation: sourceLocation)
        #expect(twice.first.subscription?.isCancelled == false, sourceLocation: sourceLocation)
        #expect(tracker.subscriptionNames.count == 1, sourceLocation: sourceLocation)
    }
}

/// A subscriber that asks for one value at a time, from inside
/// `receive(_:)`, through the subscription (the way a hand-written paced
/// subscriber works), and records what it got.
final class OneByOne<Input, Failure: Error>: Subscriber, Cancellable, @unchecked Sendable {
    // @unchecked Sendable: used from one thread in these tests.
    var subscription: (any Subscription)?
    var values: [Input] = []
    var completion: Subscribers.Completion<Failure>?

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        subscription.request(.max(1))
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        values.append(input)
        subscription?.request(.max(1))
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        self.completion = completion
        subscription = nil
    }

    func cancel() {
        subscription?.cancel()
        subscription = nil
    }
}
