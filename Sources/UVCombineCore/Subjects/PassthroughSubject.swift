import Synchronization

/// A subject that broadcasts elements to downstream subscribers.
///
/// Unlike ``CurrentValueSubject`` it keeps no value: a subscriber with no
/// outstanding demand misses the values sent meanwhile, and a subscriber that
/// attaches late sees only later values. After completion, new subscribers
/// receive only the completion.
///
/// Threading: `send` may be called from any thread, also re-entrantly from
/// inside a subscriber. Values reach subscribers on the sending thread, and
/// deliveries are serialised: a `send` from another thread waits until the
/// current one has reached every subscriber. Once a subscriber's `cancel()`
/// has returned, no value reaches it (a cancel from another thread waits
/// for the value in flight). So a subscriber must not block waiting for a
/// thread that is sending to or cancelling on the same subject.
///
/// Cost: one lock per `send` whatever the number of subscribers; no
/// allocation and no reference counting per value.
///
/// ```swift
/// let subject = PassthroughSubject<String, Never>()
/// let c = subject.sink { print($0) }
/// subject.send("hello") // Prints: "hello"
/// subject.send(completion: .finished)
/// ```
public final class PassthroughSubject<Output, Failure: Error>: Subject, EngineSubject,
    CustomStringConvertible
{
    @usableFromInline internal let engine = SubjectEngine<Output, Failure>(latest: nil)

    /// Creates a subject with no subscribers.
    ///
    /// ```swift
    /// let subject = PassthroughSubject<Int, Never>()
    /// ```
    public init() {}

    deinit {
        // Upstreams we were subscribed to (publisher.subscribe(subject)) are
        // cancelled with us, as in Combine.
        engine.takeUpstreams().forEach { $0.cancel() }
    }

    /// Attaches `subscriber`; after completion it receives only the
    /// completion.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        engine.subscribe(subscriber, parent: self, name: "PassthroughSubject", replaysLatest: false)
    }

    /// Sends `value` to every subscriber that has demand; the others miss it.
    @inlinable
    public func send(_ value: Output) {
        engine.send(value, replaysLatest: false)
    }

    /// Sends the completion to every subscriber, once; later sends are
    /// ignored.
    public func send(completion: Subscribers.Completion<Failure>) {
        engine.send(completion: completion)
    }

    /// Accepts an upstream subscription; requests `.unlimited` from it once
    /// any subscriber of this subject has requested something (at once if
    /// one already has), as Combine does. After completion it is cancelled.
    public func send(subscription: any Subscription) {
        engine.receive(upstream: subscription, eager: false)
    }

    @inlinable
    internal func conduitRequested(_ conduit: ConduitBase<Output, Failure>, _ demand: Subscribers.Demand) {
        engine.request(demand, for: conduit)
    }

    @inlinable
    internal func conduitCancelled(_ conduit: ConduitBase<Output, Failure>) {
        engine.cancel(conduit)
    }

    @inlinable
    internal func attach(connection: ConduitBase<Output, Failure>) -> Subscribers.Completion<Failure>? {
        engine.attach(connection, replaysLatest: false)
    }

    @usableFromInline
    internal func conduitDemand(_ conduit: ConduitBase<Output, Failure>) -> Subscribers.Demand? {
        engine.demand(of: conduit)
    }

    /// `PassthroughSubject`, as Combine describes it.
    public var description: String { "PassthroughSubject" }
}

// Every piece of mutable state is behind the engine's gate.
extension PassthroughSubject: @unchecked Sendable where Output: Sendable, Failure: Sendable {}
