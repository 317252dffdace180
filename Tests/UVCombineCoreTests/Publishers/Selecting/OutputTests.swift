import Testing
import UVCombineCore
import UVCombineTesting

@Suite("prefix(_:), output(at:), output(in:)")
struct OutputTests {
    @Test func rangesAreTranslatedAsInCombine() {
        let p = Empty<Int, Never>()
        #expect(p.prefix(3).range == 0..<3)
        #expect(p.prefix(0).range == 0..<0)
        #expect(p.output(at: 4).range == 4..<5)
        #expect(p.output(in: 2...4).range == 2..<5)
        #expect(p.output(in: 2...).range == 2..<Int.max)
        #expect(p.output(in: ..<7).range == 0..<7)
        #expect(p.prefix(2) == p.prefix(2))
    }

    @Test func prefixPublishesTheFirstElementsAndFinishesAtOnce() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.prefix(2).subscribe(tracker)
        upstream.send(1)
        #expect(tracker.history == ["subscription(Output)", "value(1)"])
        upstream.send(2)
        // Finished right after the last element, without waiting for a third.
        #expect(tracker.history == ["subscription(Output)", "value(1)", "value(2)", "finished"])
        #expect(upstream.subscription?.cancelCount == 1)
        upstream.send(3)
        upstream.send(completion: .finished)
        #expect(tracker.completionCount == 1)
        #expect(tracker.values == [1, 2])
    }

    // A deliberate difference (docs/combine-compatibility.md): Combine's
    // Output, as OpenCombine reconstructs it, cancels and finishes when the
    // value after the range arrives; ours does both inside the range's last
    // value, upstream cancel first (the order Combine's has too).
    @Test func outputInRangeCancelsThenFinishesInsideItsLastValue() {
        let upstream = TestPublisher<Int, TestError>()
        var cancelsSeenAtFinish: Int?
        var values: [Int] = []
        let token = upstream.output(in: 1..<3).sink(
            receiveCompletion: { _ in cancelsSeenAtFinish = upstream.subscription?.cancelCount },
            receiveValue: { values.append($0) })
        #expect(upstream.send(0) == .max(1))
        #expect(upstream.send(1) == .none)
        #expect(cancelsSeenAtFinish == nil)
        #expect(upstream.send(2) == .none)
        #expect(values == [1, 2])
        #expect(cancelsSeenAtFinish == 1)
        _ = token
    }

    @Test func outputInRangeDropsTheHeadWithCompensation() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .max(2), demandPerValue: { _ in .max(5) })
        upstream.output(in: 2..<4).subscribe(tracker)
        #expect(upstream.subscription?.requested == [.max(2)])
        #expect(upstream.send(0) == .max(1))
        #expect(upstream.send(1) == .max(1))
        #expect(upstream.send(2) == .max(5))
        #expect(upstream.send(3) == .none) // the last one: the stream ends
        #expect(tracker.history == ["subscription(Output)", "value(2)", "value(3)", "finished"])
    }

    @Test func outputAtPublishesOneElement() {
        let tracker = TrackingSubscriber<String, Never>()
        ["a", "b", "c"].publisher.eraseToAnyPublisher().output(at: 1).subscribe(tracker)
        #expect(tracker.history == ["subscription(Output)", "value(b)", "finished"])
    }

    @Test func upstreamEndingBeforeTheRangePublishesNothing() {
        let finished = TrackingSubscriber<Int, Never>()
        [1, 2].publisher.eraseToAnyPublisher().output(at: 5).subscribe(finished)
        #expect(finished.history == ["subscription(Output)", "finished"])
        let upstream = TestPublisher<Int, TestError>()
        let failed = TrackingSubscriber<Int, TestError>()
        upstream.output(in: 1...3).subscribe(failed)
        upstream.send(0)
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        #expect(failed.history == ["subscription(Output)", "value(1)", "failure(boom)"])
    }

    @Test func emptyRangeFinishesOnTheFirstElement() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.prefix(0).subscribe(tracker)
        #expect(tracker.history == ["subscription(Output)"])
        #expect(upstream.send(1) == .none)
        #expect(tracker.history == ["subscription(Output)", "finished"])
        #expect(upstream.subscription?.isCancelled == true)
    }

    @Test func oneAtATimeGetsExactlyOnePerRequest() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        (0..<10).publisher.eraseToAnyPublisher().output(in: 3..<6).subscribe(tracker)
        #expect(tracker.values == [3])
        tracker.request(.max(1))
        #expect(tracker.values == [3, 4])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(Output)", "value(3)", "value(4)", "value(5)", "finished"])
        let paced = OneByOne<Int, Never>()
        (0..<100).publisher.prefix(50).subscribe(paced)
        #expect(paced.values == Array(0..<50))
        #expect(paced.completion == .finished)
    }

    @Test func neverMoreThanRequested() {
        let subject = PassthroughSubject<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(2))
        subject.prefix(10).subscribe(tracker)
        for i in 0..<5 { subject.send(i) }
        #expect(tracker.values == [0, 1])
    }

    @Test func negativeBoundsTrap() async {
        await #expect(processExitsWith: .failure) {
            _ = Empty<Int, Never>().prefix(-1)
        }
        await #expect(processExitsWith: .failure) {
            _ = Empty<Int, Never>().output(at: -1)
        }
    }

    @Test func contract() {
        // Events after cancel are forwarded, as Combine does: see
        // ElementwiseOutOfOrderTests.eventsAfterCancel.
        OperatorChecks.cancelReleasesTheChain { $0.output(in: 1..<5) }
        OperatorChecks.completionReleasesTheChain { $0.prefix(1) }
        OperatorChecks.secondSubscriptionIsCancelled { $0.prefix(3) }
    }
}
