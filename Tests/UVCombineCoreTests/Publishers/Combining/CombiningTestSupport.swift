import Synchronization
import UVCombineCore
import UVCombineTesting

/// A subscriber for concurrency tests: requests `.unlimited`, counts values,
/// and records whether two calls ever overlapped (Combine promises a
/// subscriber one call at a time). Optionally cancels after `cancelAfter`
/// values, from inside `receive(_:)`.
final class SerialCheckingSubscriber<Input, Failure: Error>: Subscriber, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is atomic or inside the mutex.
    private let inCall = Atomic<Int>(0)
    private let overlapCount = Atomic<Int>(0)
    private let valueCount = Atomic<Int>(0)
    private let completionCount = Atomic<Int>(0)
    private let subscription = Mutex<LockedBox<(any Subscription)?>>(LockedBox(nil))
    private let cancelAfter: Int?

    init(cancelAfter: Int? = nil) {
        self.cancelAfter = cancelAfter
    }

    func receive(subscription: any Subscription) {
        self.subscription.withLock { $0.value = subscription }
        subscription.request(.unlimited)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        enter()
        let count = valueCount.add(1, ordering: .relaxed).newValue
        if let cancelAfter, count == cancelAfter {
            subscription.withLock { LockedBox($0.value) }.value?.cancel()
        }
        leave()
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        enter()
        completionCount.add(1, ordering: .relaxed)
        leave()
    }

    private func enter() {
        if inCall.add(1, ordering: .acquiringAndReleasing).newValue != 1 {
            overlapCount.add(1, ordering: .relaxed)
        }
    }

    private func leave() {
        inCall.subtract(1, ordering: .acquiringAndReleasing)
    }

    var values: Int { valueCount.load(ordering: .acquiring) }
    var completions: Int { completionCount.load(ordering: .acquiring) }
    var overlaps: Int { overlapCount.load(ordering: .acquiring) }
}

/// A subscriber that records the values it receives and how deeply nested
/// each delivery was, and requests `requestInside` from inside every
/// `receive(_:)` (a re-entrant request). Single-threaded tests only.
final class DepthRecordingSubscriber<Input, Failure: Error>: Subscriber {
    private(set) var received: [Input] = []
    private(set) var depths: [Int] = []
    private(set) var completion: Subscribers.Completion<Failure>?
    private var depth = 0
    private var subscription: (any Subscription)?
    private let requestInside: Subscribers.Demand

    init(requestInside: Subscribers.Demand) {
        self.requestInside = requestInside
    }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        depth += 1
        received.append(input)
        depths.append(depth)
        if requestInside != .none { subscription?.request(requestInside) }
        depth -= 1
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        self.completion = completion
    }

    func request(_ demand: Subscribers.Demand) {
        subscription?.request(demand)
    }

    func cancel() {
        subscription?.cancel()
    }
}
