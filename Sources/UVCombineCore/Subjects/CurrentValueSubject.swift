import Synchronization

/// A subject that wraps a single value and publishes a new element whenever
/// the value changes.
///
/// A new subscriber receives the current value on its first demand. A
/// subscriber that had no demand when values changed receives the latest
/// value (not every missed one) on its next request. After completion,
/// setting `value` still changes it but sends nothing, `send(_:)` does
/// nothing, and new subscribers receive only the completion (as in Combine).
///
/// Threading: as ``PassthroughSubject`` (serialised deliveries, strict
/// cancel); `value` may be read and written from any thread.
///
/// ```swift
/// let temperature = CurrentValueSubject<Int, Never>(20)
/// let c = temperature.sink { print($0) } // Prints: "20"
/// temperature.value = 21                  // Prints: "21"
/// ```
public final class CurrentValueSubject<Output, Failure: Error>: Subject, EngineSubject,
    CustomStringConvertible
{
    @usableFromInline internal let engine: SubjectEngine<Output, Failure>

    /// Creates a subject holding `value`.
    ///
    /// ```swift
    /// let flag = CurrentValueSubject<Bool, Never>(false)
    /// ```
    public init(_ value: Output) {
        engine = SubjectEngine(latest: value)
    }

    deinit {
        engine.takeUpstreams().forEach { $0.cancel() }
    }

    /// The current value. Setting it sends the new value to subscribers;
    /// after completion it only stores it, as in Combine.
    public var value: Output {
        get {
            guard let latest = engine.latest else { violation("CurrentValueSubject lost its value") }
            return latest
        }
        set { engine.send(newValue, replaysLatest: true, storesAfterCompletion: true) }
    }

    /// Attaches `subscriber`; it receives the current value on its first
    /// demand, or only the completion once the subject has completed.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        engine.subscribe(subscriber, parent: self, name: "CurrentValueSubject", replaysLatest: true)
    }

    /// Stores `value` and sends it to every subscriber with demand.
    @inlinable
    public func send(_ value: Output) {
        engine.send(value, replaysLatest: true)
    }

    /// Sends the completion to every subscriber, once.
    public func send(completion: Subscribers.Completion<Failure>) {
        engine.send(completion: completion)
    }

    /// Accepts an upstream subscription and requests `.unlimited` from it
    /// at once, as Combine does. After completion it is cancelled.
    public func send(subscription: any Subscription) {
        engine.receive(upstream: subscription, eager: true)
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
        engine.attach(connection, replaysLatest: true)
    }

    @usableFromInline
    internal func conduitDemand(_ conduit: ConduitBase<Output, Failure>) -> Subscribers.Demand? {
        engine.demand(of: conduit)
    }

    /// `CurrentValueSubject`, as Combine describes it.
    public var description: String { "CurrentValueSubject" }
}

// Every piece of mutable state is behind the engine's gate.
extension CurrentValueSubject: @unchecked Sendable where Output: Sendable, Failure: Sendable {}
