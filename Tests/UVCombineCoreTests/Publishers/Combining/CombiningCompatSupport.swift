import Synchronization
import UVCombineCore
import UVCombineTesting

/// An ordered record of events from several subscriptions and subscribers,
/// so a test can check which call came first (Combine cancels inner
/// publishers before the outer one, cancels before it fails, ...).
final class CmbEventLog: @unchecked Sendable {
    // @unchecked Sendable: all mutable state is inside the mutex.
    private let entries = Mutex<[String]>([])

    func append(_ entry: String) { entries.withLock { $0.append(entry) } }

    /// Every entry, in order.
    var all: [String] { entries.withLock { $0 } }
}

/// A subscription that writes `name.request(d)` and `name.cancel` to a log.
final class CmbLoggedSubscription: Subscription, CustomStringConvertible, @unchecked Sendable {
    let name: String
    let log: CmbEventLog

    init(_ name: String, _ log: CmbEventLog) {
        self.name = name
        self.log = log
    }

    func request(_ demand: Subscribers.Demand) { log.append("\(name).request(\(demand))") }
    func cancel() { log.append("\(name).cancel") }
    var description: String { name }
}

/// A publisher that keeps the subscriber it is given and sends nothing by
/// itself: the test delivers a subscription, values and completions in any
/// order (before the subscription, twice, after the end), as a misbehaving
/// upstream would. It keeps its subscriber for ever, as a careless upstream
/// might, so lifecycle tests can see whether the operator lets go of its
/// own downstream.
final class CmbManualPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    // @unchecked Sendable: single-threaded tests only.
    private var onSubscription: ((any Subscription) -> Void)?
    private var onValue: ((Output) -> Subscribers.Demand)?
    private var onCompletion: ((Subscribers.Completion<Failure>) -> Void)?
    /// The subscriber as given (the operator's object, to cast to
    /// `Subscription` or `CustomReflectable`).
    private(set) var subscriber: Any?
    private let subscription: (any Subscription)?

    /// `subscription`, when given, is sent at once on subscribe.
    init(subscription: (any Subscription)? = nil) {
        self.subscription = subscription
    }

    /// Called when a subscriber arrives, before anything is sent to it.
    var willSubscribe: (() -> Void)?

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        willSubscribe?()
        self.subscriber = subscriber
        onSubscription = { subscriber.receive(subscription: $0) }
        onValue = { subscriber.receive($0) }
        onCompletion = { subscriber.receive(completion: $0) }
        if let subscription { subscriber.receive(subscription: subscription) }
    }

    func send(subscription: any Subscription) { onSubscription?(subscription) }

    @discardableResult
    func send(_ value: Output) -> Subscribers.Demand { onValue?(value) ?? .none }

    func send(completion: Subscribers.Completion<Failure>) { onCompletion?(completion) }

    /// The subscriber's combine identifier.
    var subscriberIdentifier: CombineIdentifier? {
        (subscriber as? any CustomCombineIdentifierConvertible)?.combineIdentifier
    }

    /// The subscriber seen as the subscription it also is.
    var subscriberAsSubscription: (any Subscription)? { subscriber as? any Subscription }
}

/// A subscriber that writes `value(v)`, `finished`, `failure(e)` to a log,
/// after requesting `initialDemand` (unless `.none`).
final class CmbLoggingSubscriber<Input, Failure: Error>: Subscriber, @unchecked Sendable {
    // @unchecked Sendable: single-threaded tests only.
    let log: CmbEventLog
    let initialDemand: Subscribers.Demand
    var subscription: (any Subscription)?

    init(_ log: CmbEventLog, initialDemand: Subscribers.Demand = .unlimited) {
        self.log = log
        self.initialDemand = initialDemand
    }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        if initialDemand != .none { subscription.request(initialDemand) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        log.append("value(\(input))")
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished: log.append("finished")
        case .failure(let error): log.append("failure(\(error))")
        }
        subscription = nil
    }
}

/// `Mirror(reflecting:)`'s children as `label: value` strings.
func cmbMirrorChildren(_ value: Any) -> [String] {
    Mirror(reflecting: value).children.map { "\($0.label ?? "_"): \($0.value)" }
}

/// Debug output of an object: description, playground description.
func cmbDebugStrings(_ value: Any) -> (description: String?, playground: String?) {
    ((value as? any CustomStringConvertible)?.description,
     (value as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String)
}

/// A subscription that records the demand requested and the cancels.
final class CmbProbeSubscription: Subscription, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is inside the mutex.
    private let state = Mutex<([Subscribers.Demand], Int)>(([], 0))

    func request(_ demand: Subscribers.Demand) { state.withLock { $0.0.append(demand) } }
    func cancel() { state.withLock { $0.1 += 1 } }

    var requested: [Subscribers.Demand] { state.withLock { $0.0 } }
    var cancelCount: Int { state.withLock { $0.1 } }
}
