import Synchronization
import Testing
import UVCombineCore
import UVCombineTesting

@Suite("handleEvents")
struct HandleEventsTests {
    /// Collects the events the closures observe.
    final class Log: @unchecked Sendable {
        // @unchecked Sendable: the array is behind the mutex.
        private let entries = Mutex<[String]>([])
        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    func logged<P: Publisher>(_ upstream: P, into log: Log) -> Publishers.HandleEvents<P> {
        upstream.handleEvents(
            receiveSubscription: { log.add("subscription(\($0))") },
            receiveOutput: { log.add("output(\($0))") },
            receiveCompletion: { log.add("completion(\($0))") },
            receiveCancel: { log.add("cancel") },
            receiveRequest: { log.add("request(\($0))") })
    }

    @Test func observesValuesAndFinish() {
        let log = Log()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(2), demandPerValue: { $0 == 1 ? .max(1) : .none })
        logged([1, 2, 3].publisher, into: log).subscribe(tracker)
        #expect(log.all == ["subscription([1, 2, 3])", "request(max(2))", "output(1)", "request(max(1))",
                            "output(2)", "output(3)", "completion(finished)"])
        #expect(tracker.history == ["subscription(HandleEvents)", "value(1)", "value(2)", "value(3)", "finished"])
    }

    @Test func observesFailure() {
        let log = Log()
        let tracker = TrackingSubscriber<Int, TestError>()
        logged(Fail<Int, TestError>(error: .boom), into: log).subscribe(tracker)
        #expect(log.all == ["subscription(Empty)", "request(unlimited)", "completion(failure(boom))"])
        #expect(tracker.completion == .failure(.boom))
    }

    @Test func oneAtATimeGetsExactlyOnePerRequest() {
        let log = Log()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        logged([1, 2].publisher, into: log).subscribe(tracker)
        #expect(tracker.values == [1])
        tracker.request(.max(1))
        #expect(tracker.values == [1, 2])
        #expect(log.all.filter { $0.hasPrefix("request") } == ["request(max(1))", "request(max(1))"])
    }

    @Test func cancelRunsTheClosureReachesUpstreamAndReleasesTheClosures() {
        final class Token {}
        weak var weakToken: Token?
        let upstream = TestPublisher<Int, Never>()
        let log = Log()
        let subscriber = ManualSubscriber<Int, Never>()
        do {
            let token = Token()
            weakToken = token
            upstream.handleEvents(receiveOutput: { _ in _ = token }, receiveCancel: { log.add("cancel") })
                .subscribe(subscriber)
        }
        #expect(weakToken != nil)
        subscriber.subscription?.cancel()
        #expect(weakToken == nil)
        subscriber.subscription?.cancel()
        #expect(log.all == ["cancel"])
        #expect(upstream.subscription?.cancelCount == 1)
        subscriber.subscription?.request(.max(1))
        #expect(upstream.subscription?.requested == [])
        // Combine's handleEvents still forwards what the upstream sends.
        upstream.send(1)
        #expect(subscriber.values == [1])
    }

    @Test func cancelReleasesTheChain() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakTracker: TrackingSubscriber<Int, Never>?
        do {
            let tracker = TrackingSubscriber<Int, Never>()
            weakTracker = tracker
            subject.handleEvents(receiveOutput: { _ in }).subscribe(tracker)
            subject.send(1)
            #expect(tracker.values == [1])
            tracker.cancel()
        }
        #expect(weakTracker == nil)
    }

    /// After completion the closures are gone, but events the upstream
    /// still sends are forwarded, as Combine's handleEvents does.
    @Test func closuresStopAfterCompletion() {
        let upstream = TestPublisher<Int, Never>()
        let log = Log()
        let tracker = TrackingSubscriber<Int, Never>()
        logged(upstream, into: log).subscribe(tracker)
        upstream.send(completion: .finished)
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(log.all == ["subscription(TestSubscription)", "request(unlimited)", "completion(finished)"])
        #expect(tracker.history == ["subscription(HandleEvents)", "finished", "value(1)", "finished"])
    }

    @Test func closuresAreMutableProperties() {
        var events = Publishers.HandleEvents(upstream: Just(1), receiveRequest: nil)
        let log = Log()
        events.receiveOutput = { log.add("output(\($0))") }
        let c = events.sink { _ in }
        #expect(log.all == ["output(1)"])
        c.cancel()
    }
}
