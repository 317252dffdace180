import Testing
import UVCombineCore
import UVCombineTesting

@Suite("print")
struct PrintTests {
    @Test func logsCombinesLinesForAFinishingPublisher() {
        let stream = RecordingStream()
        let c = Just(1).print(to: stream).sink { _ in }
        #expect(stream.lines == [
            "receive subscription: (Just)",
            "request unlimited",
            "receive value: (1)",
            "receive finished",
        ])
        c.cancel()
    }

    @Test func prefixFormAndFailure() {
        let stream = RecordingStream()
        let tracker = TrackingSubscriber<Int, TestError>()
        Fail<Int, TestError>(error: .boom).print("prefix", to: stream).subscribe(tracker)
        #expect(stream.lines == [
            "prefix: receive subscription: (Empty)",
            "prefix: request unlimited",
            "prefix: receive error: (boom)",
        ])
        #expect(tracker.history == ["subscription(Print)", "failure(boom)"])
    }

    @Test func demandLinesIncludingSynchronousDemand() {
        let stream = RecordingStream()
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: { $0 == 1 ? .max(1) : .none })
        upstream.print("p", to: stream).subscribe(tracker)
        upstream.send(1)
        upstream.send(2)
        tracker.request(.unlimited)
        tracker.cancel()
        #expect(stream.lines == [
            "p: receive subscription: (TestSubscription)",
            "p: request max: (1)",
            "p: receive value: (1)",
            "p: request max: (1) (synchronous)",
            "p: receive value: (2)",
            "p: request unlimited",
            "p: receive cancel",
        ])
        #expect(upstream.subscription?.requested == [.max(1), .unlimited])
        #expect(upstream.subscription?.isCancelled == true)
    }

    @Test func writesLikeSwiftPrint() {
        // Each line is written the way `Swift.print(_:to:)` writes it, so a
        // stream sees the same calls as under Combine.
        final class Calls: TextOutputStream, @unchecked Sendable {
            var writes: [String] = []
            func write(_ string: String) { writes.append(string) }
        }
        let calls = Calls()
        let c = Just(5).print("x", to: calls).sink { _ in }
        #expect(calls.writes.prefix(3) == ["", "x: receive subscription: (Just)", "\n"])
        c.cancel()
    }

    @Test func oneAtATimeGetsExactlyOnePerRequest() {
        let stream = RecordingStream()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        [1, 2].publisher.print(to: stream).subscribe(tracker)
        #expect(tracker.values == [1])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(Print)", "value(1)", "value(2)", "finished"])
        #expect(stream.lines == [
            "receive subscription: ([1, 2])",
            "request max: (1)",
            "receive value: (1)",
            "request max: (1)",
            "receive value: (2)",
            "receive finished",
        ])
    }

    @Test func cancelIsLoggedEachTimeButReachesUpstreamOnce() {
        let stream = RecordingStream()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = ManualSubscriber<Int, Never>()
        upstream.print(to: stream).subscribe(subscriber)
        subscriber.subscription?.cancel()
        subscriber.subscription?.cancel()
        subscriber.subscription?.request(.max(1))
        #expect(upstream.subscription?.cancelCount == 1)
        #expect(upstream.subscription?.requested == [])
        #expect(stream.lines == [
            "receive subscription: (TestSubscription)",
            "receive cancel",
            "receive cancel",
            "request max: (1)",
        ])
    }

    @Test func secondSubscriptionIsLoggedAndCancelled() {
        let stream = RecordingStream()
        let twice = SubscribesTwice<Int>()
        let tracker = TrackingSubscriber<Int, Never>()
        twice.print(to: stream).subscribe(tracker)
        #expect(twice.extra.isCancelled)
        #expect(tracker.subscriptionNames == ["Print"])
        #expect(stream.lines == [
            "receive subscription: (TestSubscription)",
            "request unlimited",
            "receive subscription: (TestSubscription)",
        ])
    }

    @Test func cancelReleasesTheChain() {
        let subject = PassthroughSubject<Int, Never>()
        let stream = RecordingStream()
        weak var weakTracker: TrackingSubscriber<Int, Never>?
        do {
            let tracker = TrackingSubscriber<Int, Never>()
            weakTracker = tracker
            subject.print(to: stream).subscribe(tracker)
            subject.send(1)
            #expect(tracker.values == [1])
            tracker.cancel()
        }
        #expect(weakTracker == nil)
        #expect(stream.lines.last == "receive cancel")
    }

    @Test func storedProperties() {
        let print = Publishers.Print(upstream: Just(1), prefix: "p")
        #expect(print.prefix == "p")
        #expect(print.stream == nil)
    }
}
