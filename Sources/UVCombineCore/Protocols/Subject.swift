import Synchronization

/// A publisher that exposes a method for outside callers to publish elements.
///
/// Threading: `send` may be called from any thread; subscribers receive on
/// the sending thread.
///
/// ```swift
/// let subject = PassthroughSubject<Int, Never>()
/// let c = subject.sink { print($0) }
/// subject.send(1) // Prints: "1"
/// ```
public protocol Subject<Output, Failure>: AnyObject, Publisher {
    /// Sends a value to the subscribers.
    func send(_ value: Output)

    /// Sends a completion signal to the subscribers.
    func send(completion: Subscribers.Completion<Failure>)

    /// Provides this subject with a subscription to an upstream publisher,
    /// which the subject uses to request values.
    func send(subscription: any Subscription)
}

extension Subject where Output == Void {
    /// Sends a void value to the subscribers.
    ///
    /// ```swift
    /// let ping = PassthroughSubject<Void, Never>()
    /// ping.send()
    /// ```
    @inlinable
    public func send() {
        send(())
    }
}

extension Publisher {
    /// Attaches the specified subject to this publisher.
    ///
    /// The subject receives the values and completion. Cancelling or
    /// deinitialising the returned cancellable cancels the upstream
    /// subscription.
    ///
    /// ```swift
    /// let relay = PassthroughSubject<Int, Never>()
    /// let link = [1, 2].publisher.subscribe(relay)
    /// ```
    public func subscribe<S: Subject>(_ subject: S) -> AnyCancellable
        where Failure == S.Failure, Output == S.Output
    {
        let subscriber = SubjectSubscriber(subject)
        receive(subscriber: subscriber)
        return AnyCancellable(subscriber)
    }
}

/// Feeds an upstream publisher into a subject: the subject sees this object
/// as its upstream subscription.
internal final class SubjectSubscriber<Downstream: Subject>: Subscriber, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
    typealias Input = Downstream.Output
    typealias Failure = Downstream.Failure

    private struct State {
        var subject: Downstream?
        var upstream: (any Subscription)?
    }

    private let state: Locked<State>

    init(_ subject: Downstream) {
        state = Locked(State(subject: subject, upstream: nil))
    }

    func receive(subscription: any Subscription) {
        let subject = state.withLock { s -> Downstream? in
            guard s.upstream == nil, s.subject != nil else { return nil }
            s.upstream = subscription
            return s.subject
        }
        guard let subject = subject else {
            subscription.cancel()
            return
        }
        subject.send(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let subject = state.withLock { $0.subject }
        subject?.send(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let subject = state.withLock { s -> Downstream? in
            let subject = s.subject
            s = State(subject: nil, upstream: nil)
            return subject
        }
        subject?.send(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        state.withLock { $0.upstream }?.request(demand)
    }

    func cancel() {
        let upstream = state.withLock { s -> (any Subscription)? in
            let upstream = s.upstream
            s = State(subject: nil, upstream: nil)
            return upstream
        }
        upstream?.cancel()
    }

    var description: String { "Subject" }
    /// Combine's children: the subject (twice, under two labels) and the
    /// upstream subscription.
    var customMirror: Mirror {
        let (subject, upstream) = state.withLock { ($0.subject, $0.upstream) }
        let children: [Mirror.Child] = [
            ("downstreamSubject", subject as Any),
            ("upstreamSubscription", upstream as Any),
            ("subject", subject as Any),
        ]
        return Mirror(self, children: children)
    }
    var playgroundDescription: Any { description }
}
