import Synchronization
import UVCombineCore
import UVCombineTesting

/// A subscriber that keeps the raw subscription it was given and requests
/// nothing by itself, so a test can call `request` and `cancel` on that very
/// object (also after cancelling, which `TrackingSubscriber` forbids).
final class ManualSubscriber<Input, Failure: Error>: Subscriber, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is inside the mutex.
    private struct State {
        var subscription: (any Subscription)?
        var values: [Input] = []
        var completions: [Subscribers.Completion<Failure>] = []
    }

    private let state = Mutex(LockedBox(State()))
    private let demandPerValue: Subscribers.Demand

    init(demandPerValue: Subscribers.Demand = .none) {
        self.demandPerValue = demandPerValue
    }

    func receive(subscription: any Subscription) {
        state.withLock { $0.value.subscription = subscription }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        state.withLock { $0.value.values.append(input) }
        return demandPerValue
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        state.withLock { $0.value.completions.append(completion) }
    }

    var subscription: (any Subscription)? { state.withLock { LockedBox($0.value.subscription) }.value }
    var values: [Input] { state.withLock { LockedBox($0.value.values) }.value }
    var completions: [Subscribers.Completion<Failure>] {
        state.withLock { LockedBox($0.value.completions) }.value
    }
}

/// A `TextOutputStream` with reference semantics that records every write,
/// so tests can read what `print(_:to:)` wrote.
final class RecordingStream: TextOutputStream, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is inside the mutex.
    private let writes = Mutex<[String]>([])

    func write(_ string: String) {
        writes.withLock { $0.append(string) }
    }

    /// Everything written, concatenated.
    var text: String { writes.withLock { $0.joined() } }

    /// The text split into lines (without the final empty one).
    var lines: [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}

/// Carries a non-`Sendable` value into a `Mutex` in these tests; it is only
/// read or written under the lock.
struct LockedBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// A publisher that offers its subscriber a second subscription right after
/// the first, which a correct operator must cancel.
final class SubscribesTwice<Output>: Publisher {
    typealias Failure = Never
    let first = TestPublisher<Output, Never>()
    let extraUpstream = TestPublisher<Output, Never>()
    var extra: TestPublisher<Output, Never>.TestSubscription { extraUpstream.subscription! }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        first.receive(subscriber: subscriber)
        extraUpstream.receive(subscriber: subscriber)
    }
}
