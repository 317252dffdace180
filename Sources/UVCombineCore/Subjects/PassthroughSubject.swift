import Synchronization

/// A subject that broadcasts elements to downstream subscribers.
///
/// Unlike ``CurrentValueSubject`` it keeps no value: a subscriber with no
/// outstanding demand misses the values sent meanwhile, and a subscriber that
/// attaches late sees only later values. After completion, new subscribers
/// receive only the completion.
///
/// Threading: `send` may be called from any thread, also concurrently and
/// re-entrantly from inside a subscriber; values reach subscribers on the
/// sending thread. Sending takes one lock for the subject and one per
/// subscriber, and allocates nothing.
///
/// ```swift
/// let subject = PassthroughSubject<String, Never>()
/// let c = subject.sink { print($0) }
/// subject.send("hello") // Prints: "hello"
/// subject.send(completion: .finished)
/// ```
public final class PassthroughSubject<Output, Failure: Error>: Subject, ConduitParent,
    CustomStringConvertible
{
    @usableFromInline
    internal struct State {
        @usableFromInline var completion: Subscribers.Completion<Failure>?
        @usableFromInline var conduits: ConduitList<Output, Failure> = .empty
        @usableFromInline var upstreams: ContiguousArray<any Subscription> = []
    }

    @usableFromInline internal let state = Mutex(UncheckedSendable(State()))

    /// Creates a subject with no subscribers.
    ///
    /// ```swift
    /// let subject = PassthroughSubject<Int, Never>()
    /// ```
    public init() {}

    deinit {
        // Upstreams we were subscribed to (publisher.subscribe(subject)) are
        // cancelled with us, as in Combine.
        for upstream in state.withLock({ $0.value.upstreams }) { upstream.cancel() }
    }

    /// Attaches `subscriber`; after completion it receives only the
    /// completion.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let conduit = SubjectConduit(parent: self, downstream: subscriber, replaysLatest: false,
                                     name: "PassthroughSubject")
        let completion = state.withLock { s -> Subscribers.Completion<Failure>? in
            if let completion = s.value.completion { return completion }
            s.value.conduits.insert(conduit)
            return nil
        }
        if let completion {
            subscriber.receive(subscription: Subscriptions.empty)
            subscriber.receive(completion: completion)
        } else {
            subscriber.receive(subscription: conduit)
        }
    }

    /// Sends `value` to every subscriber that has demand; the others miss it.
    @inlinable
    public func send(_ value: Output) {
        let conduits = state.withLock { s in
            UncheckedSendable(s.value.completion == nil ? s.value.conduits : .empty)
        }
        conduits.value.forEach { $0.offer(value) }
    }

    /// Sends the completion to every subscriber, once; later sends are
    /// ignored.
    public func send(completion: Subscribers.Completion<Failure>) {
        let conduits = state.withLock { s -> UncheckedSendable<ConduitList<Output, Failure>> in
            guard s.value.completion == nil else { return UncheckedSendable(.empty) }
            s.value.completion = completion
            let conduits = s.value.conduits
            s.value.conduits = .empty
            s.value.upstreams = []
            return UncheckedSendable(conduits)
        }
        conduits.value.forEach { $0.finish(completion) }
    }

    /// Accepts an upstream subscription and requests `.unlimited` from it.
    public func send(subscription: any Subscription) {
        let accepted = state.withLock { s -> Bool in
            guard s.value.completion == nil else { return false }
            s.value.upstreams.append(subscription)
            return true
        }
        if accepted { subscription.request(.unlimited) } else { subscription.cancel() }
    }

    @usableFromInline
    internal func detach(_ conduit: ConduitBase<Output, Failure>) {
        state.withLock { $0.value.conduits.remove(conduit) }
    }

    @usableFromInline
    internal func latestValue() -> Output? { nil }

    /// `PassthroughSubject`, as Combine describes it.
    public var description: String { "PassthroughSubject" }
}

// Every piece of mutable state is behind the mutex.
extension PassthroughSubject: @unchecked Sendable where Output: Sendable, Failure: Sendable {}
