import Synchronization

/// A subject that wraps a single value and publishes a new element whenever
/// the value changes.
///
/// A new subscriber receives the current value on its first demand. A
/// subscriber that had no demand when values changed receives the latest
/// value (not every missed one) on its next request. After completion,
/// `value` still reads the last value, setting it does nothing, and new
/// subscribers receive only the completion.
///
/// Threading: as ``PassthroughSubject``; `value` may be read and written
/// from any thread.
///
/// ```swift
/// let temperature = CurrentValueSubject<Int, Never>(20)
/// let c = temperature.sink { print($0) } // Prints: "20"
/// temperature.value = 21                  // Prints: "21"
/// ```
public final class CurrentValueSubject<Output, Failure: Error>: Subject, ConduitParent,
    CustomStringConvertible
{
    @usableFromInline
    internal struct State {
        @usableFromInline var value: Output
        @usableFromInline var completion: Subscribers.Completion<Failure>?
        @usableFromInline var conduits: ConduitList<Output, Failure> = .empty
        @usableFromInline var upstreams: ContiguousArray<any Subscription> = []
    }

    @usableFromInline internal let state: Mutex<UncheckedSendable<State>>

    /// Creates a subject holding `value`.
    ///
    /// ```swift
    /// let flag = CurrentValueSubject<Bool, Never>(false)
    /// ```
    public init(_ value: Output) {
        state = Mutex(UncheckedSendable(State(value: value)))
    }

    deinit {
        for upstream in state.withLock({ $0.value.upstreams }) { upstream.cancel() }
    }

    /// The current value. Setting it sends the new value to subscribers
    /// (ignored after completion).
    public var value: Output {
        get { state.withLock { UncheckedSendable($0.value.value) }.value }
        set { send(newValue) }
    }

    /// Attaches `subscriber`; it receives the current value on its first
    /// demand, or only the completion once the subject has completed.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let conduit = SubjectConduit(parent: self, downstream: subscriber, replaysLatest: true,
                                     name: "CurrentValueSubject")
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

    /// Stores `value` and sends it to every subscriber with demand.
    @inlinable
    public func send(_ value: Output) {
        let conduits = state.withLock { s -> UncheckedSendable<ConduitList<Output, Failure>> in
            guard s.value.completion == nil else { return UncheckedSendable(.empty) }
            s.value.value = value
            return UncheckedSendable(s.value.conduits)
        }
        conduits.value.forEach { $0.offer(value) }
    }

    /// Sends the completion to every subscriber, once.
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
    internal func latestValue() -> Output? {
        state.withLock { UncheckedSendable($0.value.value) }.value
    }

    /// `CurrentValueSubject`, as Combine describes it.
    public var description: String { "CurrentValueSubject" }
}

// Every piece of mutable state is behind the mutex.
extension CurrentValueSubject: @unchecked Sendable where Output: Sendable, Failure: Sendable {}
