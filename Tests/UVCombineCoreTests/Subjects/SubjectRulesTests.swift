import Testing
import UVCombineCore
import UVCombineTesting

/// Combine's rules for `PassthroughSubject` and `CurrentValueSubject`:
/// lifecycle, demand forwarding, misuse and debugging output.
@Suite("Subjects follow Combine")
struct SubjectRulesTests {
    enum Termination: CaseIterable { case cancelled, finished, failed }
    struct Oops: Error {}

    @Test(arguments: Termination.allCases)
    func passthroughReleasesEverythingOnTermination(_ reason: Termination) {
        weak var weakSubscriber: CompatKeepingSubscriber<Int, Oops>?
        weak var weakSubject: PassthroughSubject<Int, Oops>?
        weak var weakSubscription: AnyObject?
        do {
            let subject = PassthroughSubject<Int, Oops>()
            weakSubject = subject
            do {
                let subscriber = CompatKeepingSubscriber<Int, Oops>()
                weakSubscriber = subscriber
                subject.subscribe(subscriber)
                weakSubscription = subscriber.subscription as AnyObject?
            }
            switch reason {
            case .cancelled: (weakSubscription as? any Subscription)?.cancel()
            case .finished: subject.send(completion: .finished)
            case .failed: subject.send(completion: .failure(Oops()))
            }
            #expect(weakSubscriber == nil)
            #expect(weakSubscription == nil)
        }
        #expect(weakSubject == nil)
    }

    @Test(arguments: Termination.allCases)
    func currentValueReleasesEverythingOnTermination(_ reason: Termination) {
        weak var weakSubscriber: CompatKeepingSubscriber<Int, Oops>?
        weak var weakSubject: CurrentValueSubject<Int, Oops>?
        weak var weakSubscription: AnyObject?
        do {
            let subject = CurrentValueSubject<Int, Oops>(0)
            weakSubject = subject
            do {
                let subscriber = CompatKeepingSubscriber<Int, Oops>()
                weakSubscriber = subscriber
                subject.subscribe(subscriber)
                weakSubscription = subscriber.subscription as AnyObject?
            }
            switch reason {
            case .cancelled: (weakSubscription as? any Subscription)?.cancel()
            case .finished: subject.send(completion: .finished)
            case .failed: subject.send(completion: .failure(Oops()))
            }
            #expect(weakSubscriber == nil)
            #expect(weakSubscription == nil)
        }
        #expect(weakSubject == nil)
    }

    /// `Subscribers.Sink` is kept by a subject's conduit as itself (no
    /// holder): it still gets every value, the replayed current value and
    /// the completion, and is let go on completion and on cancel.
    @Test(arguments: Termination.allCases)
    func sinkIsKeptAsItselfAndReleasedOnTermination(_ reason: Termination) {
        let subject = CurrentValueSubject<Int, Oops>(5)
        weak var weakSink: Subscribers.Sink<Int, Oops>?
        var received: [Int] = []
        var completions = 0
        do {
            let sink = Subscribers.Sink<Int, Oops>(
                receiveCompletion: { _ in completions += 1 },
                receiveValue: { received.append($0) })
            weakSink = sink
            subject.subscribe(sink)
            subject.send(6)
            switch reason {
            case .cancelled: sink.cancel()
            case .finished: subject.send(completion: .finished)
            case .failed: subject.send(completion: .failure(Oops()))
            }
        }
        #expect(received == [5, 6])
        #expect(completions == (reason == .cancelled ? 0 : 1))
        #expect(weakSink == nil)
        subject.send(7)
        #expect(received == [5, 6])
    }

    /// Finite demand and the owed current value for the first subscriber
    /// (kept inline by the engine) and later ones (kept in its array) alike:
    /// a subscriber without demand when a value is sent gets the current
    /// value on its next request, as Combine's `CurrentValueSubject` does.
    @Test func finiteDemandAndOwedValueForEverySubscriber() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let a = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        let b = TrackingSubscriber<Int, Never>(initialDemand: .none)
        let c = TrackingSubscriber<Int, Never>(initialDemand: .max(2))
        subject.subscribe(a)
        subject.subscribe(b)
        subject.subscribe(c)
        subject.send(1)
        subject.send(2)
        b.request(.max(1))
        a.request(.max(1))
        subject.send(3)
        #expect(a.values == [0, 2])
        #expect(b.values == [2])
        #expect(c.values == [0, 1])
        c.request(.max(1))
        #expect(c.values == [0, 1, 3])
    }

    @Test func completedPipelineThroughMapIsReleased() {
        weak var weakSubject: PassthroughSubject<Int, Never>?
        var received: [Int] = []
        var token: AnyCancellable?
        do {
            let subject = PassthroughSubject<Int, Never>()
            weakSubject = subject
            token = subject.map { $0 * 2 }.sink { received.append($0) }
            subject.send(1)
            subject.send(completion: .finished)
        }
        #expect(received == [2])
        #expect(weakSubject == nil)
        _ = token
    }

    @Test func conduitMirrorAsCombine() throws {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = CompatKeepingSubscriber<Int, Never>(initialDemand: .none)
        subject.subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "PassthroughSubject")
        #expect((subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "PassthroughSubject")
        subscription.request(.max(12))
        subject.send(1)
        let live = compatMirrorChildren(subscription)
        #expect(live.map { $0.prefix(while: { $0 != "=" }) } == ["parent", "downstream", "demand", "subject"])
        #expect(live[2] == "demand=max(11)")
        #expect(live[0].contains("PassthroughSubject"))
        subject.send(completion: .finished)
        #expect(compatMirrorChildren(subscription) == ["parent=nil", "downstream=nil", "demand=max(11)", "subject=nil"])
        // After completion, requests and cancels do nothing.
        subscription.request(.max(3))
        subscription.cancel()
        #expect(subscriber.events == ["subscription(PassthroughSubject)", "value(1)", "completion"])
    }

    @Test func currentValueConduitDescribesItself() throws {
        let subject = CurrentValueSubject<Int, Never>(5)
        let subscriber = CompatKeepingSubscriber<Int, Never>(initialDemand: .none)
        subject.subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "CurrentValueSubject")
        subscription.cancel()
        #expect(compatMirrorChildren(subscription) == ["parent=nil", "downstream=nil", "demand=max(0)", "subject=nil"])
    }

    // Combine's conduits assert a non-zero demand (OpenCombine's
    // `PassthroughSubjectTests.testCrashOnZeroInitialDemand` and
    // `CurrentValueSubjectTests.testCrashOnZeroInitialDemand`).
    @Test func passthroughConduitTrapsOnRequestNone() async {
        await #expect(processExitsWith: .failure) {
            let subject = PassthroughSubject<Int, Never>()
            let subscriber = CompatKeepingSubscriber<Int, Never>(initialDemand: .none)
            subject.subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
    }

    @Test func currentValueConduitTrapsOnRequestNone() async {
        await #expect(processExitsWith: .failure) {
            let subject = CurrentValueSubject<Int, Never>(7)
            let subscriber = CompatKeepingSubscriber<Int, Never>(initialDemand: .none)
            subject.subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
    }

    @Test func conduitsTakeNonZeroDemandAsBefore() throws {
        let current = CurrentValueSubject<Int, Never>(7)
        let subscriber = CompatKeepingSubscriber<Int, Never>(initialDemand: .none)
        current.subscribe(subscriber)
        #expect(subscriber.events == ["subscription(CurrentValueSubject)"])
        try #require(subscriber.subscription).request(.max(1))
        #expect(subscriber.events == ["subscription(CurrentValueSubject)", "value(7)"])
    }

    @Test func currentValueCanBeSetAfterCompletionWithoutSending() {
        let subject = CurrentValueSubject<Int, Never>(112)
        var received: [Int] = []
        let token = subject.sink { received.append($0) }
        subject.value = 44
        subject.send(completion: .finished)
        subject.value = 1201
        #expect(subject.value == 1201)
        subject.send(42)
        #expect(subject.value == 1201)
        #expect(received == [112, 44])
        _ = token
    }

    @Test func passthroughRequestsFromUpstreamOnlyOnceItsSubscribersAsk() {
        let upstream = CompatRecordingSubscription()
        let subject = PassthroughSubject<Int, Never>()
        subject.send(subscription: upstream)
        #expect(upstream.history == [])
        let subscriber = CompatKeepingSubscriber<Int, Never>(initialDemand: .none)
        subject.subscribe(subscriber)
        #expect(upstream.history == [])
        subscriber.subscription?.request(.max(1))
        #expect(upstream.history == ["request(unlimited)"])
        subscriber.subscription?.request(.max(2))
        #expect(upstream.history == ["request(unlimited)"])
        // Once demanded, a later upstream is asked at once.
        let later = CompatRecordingSubscription()
        subject.send(subscription: later)
        #expect(later.history == ["request(unlimited)"])
    }

    @Test func currentValueRequestsFromUpstreamAtOnce() {
        let upstream = CompatRecordingSubscription()
        let subject = CurrentValueSubject<Int, Never>(1)
        subject.send(subscription: upstream)
        #expect(upstream.history == ["request(unlimited)"])
    }

    @Test func currentValueInitialValueReachesALatePassthroughSubscriber() {
        let source = CurrentValueSubject<String, Never>("initial")
        let relay = PassthroughSubject<String, Never>()
        let link = source.subscribe(relay)
        var received: [String] = []
        let token = relay.sink { received.append($0) }
        source.send("1")
        source.send("2")
        source.send("3")
        #expect(received == ["initial", "1", "2", "3"])
        _ = (token, link)
    }

    @Test func subjectCancelsUpstreamsWhenDeinitialised() {
        let upstream = CompatRecordingSubscription()
        do {
            let subject = PassthroughSubject<Int, Never>()
            for _ in 0..<3 { subject.send(subscription: upstream) }
        }
        #expect(upstream.history == ["cancel", "cancel", "cancel"])
    }

    @Test func subscriberAfterCompletionGetsEmptyThenCompletion() {
        let subject = PassthroughSubject<Int, Never>()
        subject.send(completion: .finished)
        let subscriber = CompatKeepingSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        #expect(subscriber.events == ["subscription(Empty)", "completion"])
    }
}
