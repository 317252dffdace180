import Synchronization
import UVCombineCore

/// A subscription that records what is asked of it (for the Combine-rules
/// tests of sinks, subjects and connectables).
final class CompatRecordingSubscription: Subscription, CustomStringConvertible, @unchecked Sendable {
    private let log = Mutex<[String]>([])

    func request(_ demand: Subscribers.Demand) { log.withLock { $0.append("request(\(demand))") } }
    func cancel() { log.withLock { $0.append("cancel") } }

    var history: [String] { log.withLock { $0 } }
    var description: String { "CompatRecordingSubscription" }
}

/// A subscriber that keeps every subscription it gets forever (as many
/// hand-written subscribers do), so a leak test shows whether the
/// publisher side lets go of it.
final class CompatKeepingSubscriber<Input, Failure: Error>: Subscriber, @unchecked Sendable {
    private struct State {
        var subscriptions: [any Subscription] = []
        var events: [String] = []
    }
    private let state = Mutex(CompatBox(State()))
    private let initialDemand: Subscribers.Demand

    init(initialDemand: Subscribers.Demand = .unlimited) {
        self.initialDemand = initialDemand
    }

    func receive(subscription: any Subscription) {
        state.withLock {
            $0.value.subscriptions.append(subscription)
            $0.value.events.append("subscription(\(subscription))")
        }
        if initialDemand != .none { subscription.request(initialDemand) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        state.withLock { $0.value.events.append("value(\(input))") }
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        state.withLock { $0.value.events.append("completion") }
    }

    var subscription: (any Subscription)? { state.withLock { CompatBox($0.value.subscriptions.last) }.value }
    var events: [String] { state.withLock { $0.value.events } }
}

struct CompatBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// The children of a mirror as (label, String(describing:)) pairs.
func compatMirrorChildren(_ subject: Any) -> [String] {
    Mirror(reflecting: subject).children.map { "\($0.label ?? "_")=\(String(describing: $0.value))" }
}

final class CompatOwner: @unchecked Sendable {
    var value = 0
}
