import Testing
import UVCombineCore

/// Combine's rules for `Subscribers.Sink` and `Subscribers.Assign`:
/// lifecycle, misuse and debugging output.
@Suite("Sink and Assign follow Combine")
struct SinkRulesTests {
    final class Canary: @unchecked Sendable {}

    /// A hand-made sink whose two closures each capture their own canary.
    private func makeSink(values: CompatOwner? = nil) -> (Subscribers.Sink<Int, Never>, () -> Bool, () -> Bool) {
        var valueCanary: Canary? = Canary()
        var completionCanary: Canary? = Canary()
        weak let weakValue = valueCanary
        weak let weakCompletion = completionCanary
        let sink = Subscribers.Sink<Int, Never>(
            receiveCompletion: { [completionCanary] _ in _ = completionCanary },
            receiveValue: { [valueCanary] in _ = valueCanary; values?.value = $0 })
        valueCanary = nil
        completionCanary = nil
        return (sink, { weakValue == nil }, { weakCompletion == nil })
    }

    @Test func handMadeSinkReleasesClosuresOnCompletion() {
        let (sink, valueGone, completionGone) = makeSink()
        sink.receive(subscription: CompatRecordingSubscription())
        #expect(!valueGone() && !completionGone())
        sink.receive(completion: .finished)
        withExtendedLifetime(sink) {
            #expect(valueGone())
            #expect(completionGone())
        }
    }

    @Test func handMadeSinkReleasesClosuresOnCompletionWithoutSubscription() {
        let (sink, valueGone, completionGone) = makeSink()
        sink.receive(completion: .finished)
        withExtendedLifetime(sink) { #expect(valueGone() && completionGone()) }
    }

    @Test func handMadeSinkReleasesClosuresOnCancel() {
        let (sink, valueGone, completionGone) = makeSink()
        let subscription = CompatRecordingSubscription()
        sink.receive(subscription: subscription)
        sink.cancel()
        withExtendedLifetime(sink) { #expect(valueGone() && completionGone()) }
        #expect(subscription.history == ["request(unlimited)", "cancel"])
    }

    @Test func cancelBeforeSubscriptionIsIgnored() {
        let values = CompatOwner()
        let (sink, valueGone, _) = makeSink(values: values)
        sink.cancel()
        withExtendedLifetime(sink) { #expect(!valueGone()) }
        let subscription = CompatRecordingSubscription()
        sink.receive(subscription: subscription)
        #expect(subscription.history == ["request(unlimited)"])
        _ = sink.receive(7)
        #expect(values.value == 7)
    }

    @Test func valueBeforeSubscriptionIsDelivered() {
        var received: [Int] = []
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { received.append($0) })
        #expect(sink.receive(12) == .none)
        #expect(received == [12])
        let subject = PassthroughSubject<Int, Never>()
        subject.subscribe(sink)
        subject.send(42)
        subject.send(completion: .finished)
        #expect(sink.receive(100) == .none)
        #expect(received == [12, 42])
    }

    @Test func completionBeforeSubscriptionIsDeliveredOnce() {
        var completions = 0
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in completions += 1 }, receiveValue: { _ in })
        sink.receive(completion: .finished)
        sink.receive(completion: .finished)
        #expect(completions == 1)
        let late = CompatRecordingSubscription()
        sink.receive(subscription: late)
        #expect(late.history == ["cancel"])
    }

    @Test func secondSubscriptionIsCancelledAndCompletionDoesNotCancel() {
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        let first = CompatRecordingSubscription()
        let second = CompatRecordingSubscription()
        sink.receive(subscription: first)
        sink.receive(subscription: second)
        sink.receive(subscription: first)
        #expect(second.history == ["cancel"])
        #expect(first.history == ["request(unlimited)", "cancel"])
        sink.receive(completion: .finished)
        #expect(first.history == ["request(unlimited)", "cancel"])
    }

    @Test func receiveClosuresBecomeNoOpsAfterTermination() {
        var received: [Int] = []
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { received.append($0) })
        sink.receiveValue(1)
        sink.receive(subscription: CompatRecordingSubscription())
        sink.cancel()
        sink.receiveValue(2)
        #expect(received == [1])
    }

    @Test func recursiveCompletionRunsOnce() {
        var counter = 10
        var sinkRef: Subscribers.Sink<Int, Never>?
        let sink = Subscribers.Sink<Int, Never>(
            receiveCompletion: {
                guard counter > 0 else { return }
                counter -= 1
                sinkRef?.receive(completion: $0)
            },
            receiveValue: { _ in })
        sinkRef = sink
        sink.receive(subscription: CompatRecordingSubscription())
        sink.receive(completion: .finished)
        #expect(counter == 9)
        sinkRef = nil
    }

    @Test func sinkOperatorReleasesClosuresOnCompletionAndCancel() {
        weak var weakCanary: Canary?
        let subject = PassthroughSubject<Int, Never>()
        var token: AnyCancellable?
        do {
            let canary = Canary()
            weakCanary = canary
            token = subject.sink { _ in _ = canary }
        }
        #expect(weakCanary != nil)
        subject.send(completion: .finished)
        #expect(weakCanary == nil)
        token = nil

        let other = PassthroughSubject<Int, Never>()
        do {
            let canary = Canary()
            weakCanary = canary
            token = other.sink { _ in _ = canary }
        }
        token?.cancel()
        #expect(weakCanary == nil)
        _ = token
    }

    @Test func sinkDescribesItselfAsCombineDoes() {
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        #expect(sink.description == "Sink")
        #expect(sink.playgroundDescription as? String == "Sink")
        #expect(sink.customMirror.children.isEmpty)
    }

    // MARK: Assign

    @Test func assignReleasesObjectOnCompletionAndCancel() {
        weak var weakOwner: CompatOwner?
        let subject = PassthroughSubject<Int, Never>()
        var token: AnyCancellable?
        do {
            let owner = CompatOwner()
            weakOwner = owner
            token = subject.assign(to: \.value, on: owner)
        }
        subject.send(3)
        #expect(weakOwner?.value == 3)
        subject.send(completion: .finished)
        #expect(weakOwner == nil)

        let other = PassthroughSubject<Int, Never>()
        do {
            let owner = CompatOwner()
            weakOwner = owner
            token = other.assign(to: \.value, on: owner)
        }
        token?.cancel()
        #expect(weakOwner == nil)
        _ = token
    }

    @Test func handMadeAssignIgnoresEverythingBeforeSubscription() {
        let owner = CompatOwner()
        let assign = Subscribers.Assign(object: owner, keyPath: \CompatOwner.value)
        #expect(assign.receive(5) == .none)
        #expect(owner.value == 0)
        assign.receive(completion: .finished)
        assign.cancel()
        #expect(assign.object === owner)
        let subscription = CompatRecordingSubscription()
        assign.receive(subscription: subscription)
        _ = assign.receive(6)
        #expect(owner.value == 6)
        let second = CompatRecordingSubscription()
        assign.receive(subscription: second)
        #expect(second.history == ["cancel"])
        assign.receive(completion: .finished)
        #expect(assign.object == nil)
        #expect(subscription.history == ["request(unlimited)"])
        _ = assign.receive(7)
        #expect(owner.value == 6)
    }

    @Test func assignDescribesItselfAsCombineDoes() {
        let owner = CompatOwner()
        let assign = Subscribers.Assign(object: owner, keyPath: \CompatOwner.value)
        #expect(assign.description == "Assign CompatOwner.")
        #expect(assign.playgroundDescription as? String == "Assign CompatOwner.")
        #expect(Mirror(reflecting: assign).children.map(\.label) == ["object", "keyPath", "status"])
    }
}
