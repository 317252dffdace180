import Testing
import UVCombineCore
import UVCombineTesting

@Suite("ignoreOutput")
struct IgnoreOutputTests {
    @Test func passesOnlyTheCompletionAndRequestsUnlimited() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Never, TestError>(initialDemand: .none)
        upstream.ignoreOutput().subscribe(tracker)
        // Stateless: the upstream's own subscription reaches the downstream.
        #expect(tracker.history == ["subscription(TestSubscription)"])
        #expect(upstream.subscription?.requested == [.unlimited])
        #expect(upstream.send(1) == .none)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(TestSubscription)", "failure(boom)"])
        let finished = TrackingSubscriber<Never, Never>()
        [1, 2, 3].publisher.ignoreOutput().subscribe(finished)
        #expect(finished.history == ["subscription([1, 2, 3])", "finished"])
    }

    @Test func contract() {
        OperatorChecks.cancelReleasesTheChain { $0.ignoreOutput() }
        OperatorChecks.completionReleasesTheChain { $0.ignoreOutput() }
        let upstream = TestPublisher<Int, Never>()
        let c = upstream.ignoreOutput().sink(receiveCompletion: { _ in }, receiveValue: { _ in })
        c.cancel()
        #expect(upstream.subscription?.cancelCount == 1)
        #expect([1].publisher.ignoreOutput() == [1].publisher.ignoreOutput())
    }
}
