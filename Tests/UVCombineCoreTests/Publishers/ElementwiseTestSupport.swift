import Synchronization
import UVCombineCore
import UVCombineTesting

/// An upstream under the test's full control: it keeps the subscriber it is
/// given and sends nothing by itself, so a test can deliver events in any
/// order (a value before the subscription, a second completion...) and look
/// at the operator's subscriber object itself.
final class ElementwiseProbe<Output, Failure: Error>: Publisher, @unchecked Sendable {
    // @unchecked Sendable: driven from one thread in these tests.
    private(set) var subscriber: (any Subscriber<Output, Failure>)?

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        self.subscriber = subscriber
    }

    /// The operator's subscriber, as the subscription it also is.
    var subscriberAsSubscription: (any Subscription)? { subscriber as? any Subscription }

    func send(subscription: any Subscription) {
        subscriber?.receive(subscription: subscription)
    }

    @discardableResult
    func send(_ value: Output) -> Subscribers.Demand {
        subscriber?.receive(value) ?? .none
    }

    func send(completion: Subscribers.Completion<Failure>) {
        subscriber?.receive(completion: completion)
    }

    /// Lets go of the subscriber, as a well-behaved publisher does after
    /// completion or cancel.
    func release() {
        subscriber = nil
    }
}

/// A subscription that records what it is asked: `request(max(1))`,
/// `request(unlimited)`, `cancel`.
final class ElementwiseProbeSubscription: Subscription, CustomStringConvertible, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is inside the mutex.
    private let events = Mutex<[String]>([])

    func request(_ demand: Subscribers.Demand) {
        events.withLock { $0.append("request(\(demand))") }
    }

    func cancel() {
        events.withLock { $0.append("cancel") }
    }

    var history: [String] { events.withLock { $0 } }
    var description: String { "ElementwiseProbeSubscription" }
}

/// What an operator's debugging output looks like.
struct ElementwiseReflection: Equatable, CustomStringConvertible {
    var name: String
    var labels: [String]
    var playground: String

    var description: String { "\(name) \(labels) \(playground)" }

    /// Reads `description`, the mirror's labels and the playground
    /// description of `object`.
    init(of object: Any) {
        name = (object as? any CustomStringConvertible)?.description ?? "<none>"
        labels = (object as? any CustomReflectable).map { $0.customMirror.children.map { $0.label ?? "?" } }
            ?? ["<not reflectable>"]
        playground = ((object as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String) ?? "<none>"
    }

    init(_ name: String, _ labels: [String]) {
        self.name = name
        self.labels = labels
        playground = name
    }

    /// The mirror's child values, printed.
    static func values(of object: Any) -> [String] {
        guard let reflectable = object as? any CustomReflectable else { return [] }
        return reflectable.customMirror.children.map { String(describing: $0.value) }
    }
}

/// Runs one out-of-order scenario against an operator made from a
/// ``ElementwiseProbe`` of `Int`s.
enum ElementwiseOutOfOrder {
    /// A value before the upstream subscription: what the operator answers
    /// upstream and what the downstream saw.
    static func valueBeforeSubscription<Input, P: Publisher>(
        _ value: Input, _ make: (ElementwiseProbe<Input, TestError>) -> P
    ) -> (demand: Subscribers.Demand, history: [String]) {
        let probe = ElementwiseProbe<Input, TestError>()
        let tracker = TrackingSubscriber<P.Output, P.Failure>(demandPerValue: { _ in .max(42) })
        make(probe).subscribe(tracker)
        let demand = probe.send(value)
        return (demand, tracker.history)
    }

    /// A completion before the upstream subscription: what the downstream
    /// saw.
    static func completionBeforeSubscription<Input, P: Publisher>(
        of _: Input.Type, _ make: (ElementwiseProbe<Input, TestError>) -> P
    ) -> [String] {
        let probe = ElementwiseProbe<Input, TestError>()
        let tracker = TrackingSubscriber<P.Output, P.Failure>()
        make(probe).subscribe(tracker)
        probe.send(completion: .finished)
        return tracker.history
    }

    /// A cancel before the upstream subscription: what the operator then
    /// asks of the subscription that arrives.
    static func cancelBeforeSubscription<Input, P: Publisher>(
        of _: Input.Type, _ make: (ElementwiseProbe<Input, TestError>) -> P
    ) -> [String] {
        let probe = ElementwiseProbe<Input, TestError>()
        let tracker = TrackingSubscriber<P.Output, P.Failure>(initialDemand: .none)
        make(probe).subscribe(tracker)
        probe.subscriberAsSubscription?.cancel()
        let subscription = ElementwiseProbeSubscription()
        probe.send(subscription: subscription)
        return subscription.history
    }

    static func completionBeforeSubscription<P: Publisher>(_ make: (ElementwiseProbe<Int, TestError>) -> P) -> [String] {
        completionBeforeSubscription(of: Int.self, make)
    }

    static func cancelBeforeSubscription<P: Publisher>(_ make: (ElementwiseProbe<Int, TestError>) -> P) -> [String] {
        cancelBeforeSubscription(of: Int.self, make)
    }

    static func valueBeforeSubscription<P: Publisher>(
        _ make: (ElementwiseProbe<Int, TestError>) -> P
    ) -> (demand: Subscribers.Demand, history: [String]) {
        valueBeforeSubscription(1, make)
    }

    /// A request before the upstream subscription: what the subscription
    /// that arrives afterwards is asked.
    static func requestBeforeSubscription<P: Publisher>(
        _ make: (ElementwiseProbe<Int, TestError>) -> P
    ) -> [String] {
        let probe = ElementwiseProbe<Int, TestError>()
        let tracker = TrackingSubscriber<P.Output, P.Failure>(initialDemand: .none)
        make(probe).subscribe(tracker)
        probe.subscriberAsSubscription?.request(.max(1))
        let subscription = ElementwiseProbeSubscription()
        probe.send(subscription: subscription)
        return subscription.history
    }

    /// Values and completions after the upstream completed: what the
    /// downstream saw (after its subscription).
    static func eventsAfterCompletion<P: Publisher>(
        _ make: (ElementwiseProbe<Int, TestError>) -> P
    ) -> [String] {
        let probe = ElementwiseProbe<Int, TestError>()
        let tracker = TrackingSubscriber<P.Output, P.Failure>(initialDemand: .unlimited)
        make(probe).subscribe(tracker)
        probe.send(subscription: ElementwiseProbeSubscription())
        probe.send(completion: .finished)
        probe.send(7)
        probe.send(completion: .failure(.boom))
        return Array(tracker.history.dropFirst())
    }

    /// Values and completions after the downstream cancelled: what the
    /// downstream saw (after its subscription), and what the upstream
    /// subscription was asked.
    static func eventsAfterCancel<P: Publisher>(
        _ make: (ElementwiseProbe<Int, TestError>) -> P
    ) -> (downstream: [String], upstream: [String]) {
        let probe = ElementwiseProbe<Int, TestError>()
        let subscriber = ManualSubscriber<P.Output, P.Failure>()
        make(probe).subscribe(subscriber)
        let upstream = ElementwiseProbeSubscription()
        probe.send(subscription: upstream)
        subscriber.subscription?.request(.max(5))
        subscriber.subscription?.cancel()
        subscriber.subscription?.request(.max(1))
        subscriber.subscription?.cancel()
        probe.send(7)
        probe.send(completion: .finished)
        let downstream = subscriber.values.map { "value(\($0))" }
            + subscriber.completions.map { c -> String in
                if case .failure(let error) = c { return "failure(\(error))" }
                return "finished"
            }
        return (downstream, upstream.history)
    }
}
