import Testing
import UVCombineCore
import UVCombineTesting

/// `flatMap` as Combine: cancel and failure order, demand, misuse, debug
/// output.
@Suite("flatMap as Combine")
struct FlatMapCompatTests {
    /// Children named `child0`, `child1`, ... logging into one log.
    private static func children(_ log: CmbEventLog) -> (Int) -> CmbManualPublisher<Int, TestError> {
        { CmbManualPublisher<Int, TestError>(subscription: CmbLoggedSubscription("child\($0)", log)) }
    }

    @Test func cancelCancelsTheChildrenThenTheUpstream() {
        let log = CmbEventLog()
        let upstream = CmbManualPublisher<Int, TestError>(subscription: CmbLoggedSubscription("outer", log))
        let make = Self.children(log)
        let subscriber = CmbLoggingSubscriber<Int, TestError>(log, initialDemand: .max(5))
        upstream.flatMap { make($0) }.subscribe(subscriber)
        upstream.send(0)
        upstream.send(1)
        subscriber.subscription?.cancel()
        subscriber.subscription?.cancel()
        #expect(log.all == ["outer.request(unlimited)", "child0.request(max(1))", "child1.request(max(1))",
                            "child0.cancel", "child1.cancel", "outer.cancel"])
    }

    @Test func anUpstreamFailureCancelsTheChildrenBeforeItIsDelivered() {
        let log = CmbEventLog()
        let upstream = CmbManualPublisher<Int, TestError>(subscription: CmbLoggedSubscription("outer", log))
        let make = Self.children(log)
        upstream.flatMap(maxPublishers: .max(3)) { make($0) }.subscribe(CmbLoggingSubscriber<Int, TestError>(log))
        upstream.send(0)
        upstream.send(1)
        upstream.send(completion: .failure(.boom))
        upstream.send(completion: .failure(.boom))
        upstream.send(2)
        #expect(log.all == ["outer.request(max(3))", "child0.request(unlimited)", "child1.request(unlimited)",
                            "child0.cancel", "child1.cancel", "failure(boom)"])
    }

    @Test func aChildFailureCancelsTheOtherChildrenNotItselfNorTheUpstream() {
        let log = CmbEventLog()
        let upstream = CmbManualPublisher<Int, TestError>(subscription: CmbLoggedSubscription("outer", log))
        var made: [CmbManualPublisher<Int, TestError>] = []
        let make = Self.children(log)
        upstream.flatMap { n -> CmbManualPublisher<Int, TestError> in
            let child = make(n)
            made.append(child)
            return child
        }.subscribe(CmbLoggingSubscriber<Int, TestError>(log))
        upstream.send(0)
        upstream.send(1)
        upstream.send(2)
        made[1].send(completion: .failure(.boom))
        made[2].send(completion: .failure(.other))
        made[0].send(5)
        #expect(log.all == ["outer.request(unlimited)", "child0.request(unlimited)", "child1.request(unlimited)",
                            "child2.request(unlimited)", "child0.cancel", "child2.cancel", "failure(boom)"])
    }

    @Test func eachFinishedChildAsksTheUpstreamForOneMore() {
        let upstream = TestPublisher<Int, Never>()
        let children = (0..<3).map { _ in TestPublisher<Int, Never>() }
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.flatMap(maxPublishers: .max(2)) { children[$0] }.subscribe(tracker)
        upstream.send(0)
        upstream.send(1)
        children[0].send(completion: .finished)
        children[1].send(completion: .finished)
        #expect(upstream.subscription?.requested == [.max(2), .max(1), .max(1)])
        upstream.send(2)
        children[2].send(7)
        #expect(tracker.values == [7])
    }

    @Test func childrenFinishingInsideOneDeliveryAskOneAtATime() {
        // Both children finish synchronously inside the upstream's sends.
        let tracker = TrackingSubscriber<Int, Never>()
        let upstream = TestPublisher<Int, Never>()
        upstream.flatMap(maxPublishers: .max(1)) { Just($0) }.subscribe(tracker)
        upstream.send(1)
        upstream.send(2)
        #expect(upstream.subscription?.requested == [.max(1), .max(1), .max(1)])
        #expect(tracker.values == [1, 2])
    }

    // OpenCombine's `FlatMapTests.testChildDemandWhenLimited`, written
    // against Combine: "Apple appears to demand 1 of the child for every
    // buffered value that was sent".
    @Test func eachBufferedValueDeliveredAsksItsChildForOneMore() {
        let upstream = TestPublisher<TestPublisher<Int, Never>, Never>()
        let child0 = TestPublisher<Int, Never>()
        let child1 = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(2))
        upstream.flatMap { $0 }.subscribe(tracker)
        upstream.send(child0)
        upstream.send(child1)
        #expect(child0.subscription?.requested == [.max(1)])
        #expect(child0.send(666) == .max(1))
        #expect(child0.send(777) == .max(1))
        #expect(child0.send(888) == .none) // no demand: waits
        #expect(child0.send(999) == .none)
        tracker.request(.max(10))
        #expect(tracker.values == [666, 777, 888, 999])
        #expect(child0.subscription?.requested == [.max(1), .max(1), .max(1)])
        #expect(child1.subscription?.requested == [.max(1)])
    }

    // OpenCombine's `testSendsSubscriptionDownstreamBeforeSubscribingToUpstream`,
    // written against Combine, records `[.requested(.none)]` upstream.
    @Test func maxPublishersNoneRequestsNoneFromTheUpstream() {
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.flatMap(maxPublishers: .none) { Just($0) }.subscribe(tracker)
        #expect(tracker.subscriptionNames == ["FlatMap"])
        #expect(upstream.subscription?.requested == [.none])
    }

    @Test func eventsBeforeTheSubscription() {
        let upstream = CmbManualPublisher<Int, Never>()
        let child = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.flatMap { _ in child }.subscribe(tracker)
        // A value before the subscription is taken, as in Combine.
        #expect(upstream.send(1) == .none)
        #expect(child.subscription?.requested == [.unlimited])
        child.send(5)
        child.send(completion: .finished)
        // So is a completion.
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(FlatMap)", "value(5)", "finished"])
        let late = CmbProbeSubscription()
        upstream.send(subscription: late)
        #expect(late.cancelCount == 1)
    }

    @Test func aSecondSubscriptionIsCancelled() {
        let upstream = CmbManualPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.flatMap { Just($0) }.subscribe(tracker)
        let first = CmbProbeSubscription()
        let second = CmbProbeSubscription()
        upstream.send(subscription: first)
        upstream.send(subscription: second)
        #expect(first.requested == [.unlimited])
        #expect(second.cancelCount == 1)
        #expect(first.cancelCount == 0)
    }

    @Test func requestingNoneTrapsAsInCombine() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
            PassthroughSubject<Int, Never>().flatMap { Just($0) }.subscribe(tracker)
            tracker.request(.none)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("Subscription.request(.none): demand must not be zero"))
    }

    @Test func debugOutput() throws {
        let upstream = CmbManualPublisher<Int, Never>(subscription: CmbProbeSubscription())
        let child = CmbManualPublisher<Int, Never>(subscription: CmbProbeSubscription())
        upstream.flatMap { _ in child }.subscribe(TrackingSubscriber<Int, Never>())
        upstream.send(0)
        let outer = try #require(upstream.subscriber)
        #expect(cmbDebugStrings(outer).description == "FlatMap")
        #expect(cmbDebugStrings(outer).playground == "FlatMap")
        #expect(cmbMirrorChildren(outer).isEmpty)
        let side = try #require(child.subscriber)
        #expect(cmbDebugStrings(side).description == "FlatMap")
        #expect(cmbDebugStrings(side).playground == "FlatMap")
        let id = try #require(upstream.subscriberIdentifier)
        #expect(cmbMirrorChildren(side) == ["parentSubscription: \(id)"])
        #expect(child.subscriberIdentifier != id)
    }

    /// Nothing is kept in a cycle once the stream has ended: the operator
    /// lets go of its children and its upstream.
    @Test(arguments: 0..<3)
    func releasesChildrenAndUpstreamOnCompletionAndCancel(_ ending: Int) {
        weak var weakTracker: TrackingSubscriber<Int, TestError>?
        weak var weakChild: PassthroughSubject<Int, TestError>?
        weak var weakUpstream: PassthroughSubject<Int, TestError>?
        do {
            let upstream = PassthroughSubject<Int, TestError>()
            let child = PassthroughSubject<Int, TestError>()
            weakChild = child
            weakUpstream = upstream
            let tracker = TrackingSubscriber<Int, TestError>()
            weakTracker = tracker
            upstream.flatMap { _ in child }.subscribe(tracker)
            upstream.send(1)
            child.send(2)
            switch ending {
            case 0: tracker.cancel()
            case 1:
                child.send(completion: .failure(.boom))
                // As Combine, a child failure releases the upstream without
                // cancelling it: the chain goes once the upstream ends.
                upstream.send(completion: .finished)
            default:
                child.send(completion: .finished)
                upstream.send(completion: .finished)
            }
            #expect(tracker.values == [2])
        }
        #expect(weakTracker == nil)
        #expect(weakChild == nil)
        #expect(weakUpstream == nil)
    }
}

/// `switchToLatest` as Combine.
@Suite("switchToLatest as Combine")
struct SwitchToLatestCompatTests {
    @Test func cancelCancelsTheInnerThenTheUpstream() {
        let log = CmbEventLog()
        let upstream = CmbManualPublisher<CmbManualPublisher<Int, Never>, Never>(
            subscription: CmbLoggedSubscription("outer", log))
        let subscriber = CmbLoggingSubscriber<Int, Never>(log, initialDemand: .max(2))
        upstream.switchToLatest().subscribe(subscriber)
        upstream.send(CmbManualPublisher(subscription: CmbLoggedSubscription("first", log)))
        upstream.send(CmbManualPublisher(subscription: CmbLoggedSubscription("second", log)))
        subscriber.subscription?.cancel()
        #expect(log.all == ["outer.request(unlimited)", "first.request(max(2))", "first.cancel",
                            "second.request(max(2))", "second.cancel", "outer.cancel"])
    }

    @Test func anUpstreamFailureCancelsTheInnerBeforeItIsDelivered() {
        let log = CmbEventLog()
        let upstream = CmbManualPublisher<CmbManualPublisher<Int, TestError>, TestError>(
            subscription: CmbLoggedSubscription("outer", log))
        upstream.switchToLatest().subscribe(CmbLoggingSubscriber<Int, TestError>(log))
        upstream.send(CmbManualPublisher(subscription: CmbLoggedSubscription("inner", log)))
        upstream.send(completion: .failure(.boom))
        #expect(log.all == ["outer.request(unlimited)", "inner.request(unlimited)", "inner.cancel",
                            "failure(boom)"])
    }

    @Test func anInnerFailureCancelsTheUpstreamNotItselfBeforeItIsDelivered() {
        let log = CmbEventLog()
        let upstream = CmbManualPublisher<CmbManualPublisher<Int, TestError>, TestError>(
            subscription: CmbLoggedSubscription("outer", log))
        upstream.switchToLatest().subscribe(CmbLoggingSubscriber<Int, TestError>(log))
        let inner = CmbManualPublisher<Int, TestError>(subscription: CmbLoggedSubscription("inner", log))
        upstream.send(inner)
        inner.send(completion: .failure(.other))
        inner.send(completion: .failure(.other))
        #expect(log.all == ["outer.request(unlimited)", "inner.request(unlimited)", "outer.cancel",
                            "failure(other)"])
    }

    @Test func aValueBeyondTheDemandTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let upstream = PassthroughSubject<TestPublisher<Int, Never>, Never>()
            let inner = TestPublisher<Int, Never>()
            let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
            upstream.switchToLatest().subscribe(tracker)
            upstream.send(inner)
            inner.send(1)
            inner.send(2)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("SwitchToLatest received a value beyond the demand requested"))
    }

    @Test func eventsBeforeTheSubscription() {
        let upstream = CmbManualPublisher<Just<Int>, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        upstream.switchToLatest().subscribe(tracker)
        #expect(upstream.send(Just(3)) == .none)
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(SwitchToLatest)", "value(3)", "finished"])
        let late = CmbProbeSubscription()
        upstream.send(subscription: late)
        #expect(late.cancelCount == 1)
    }

    @Test func debugOutput() throws {
        let upstream = CmbManualPublisher<CmbManualPublisher<Int, Never>, Never>(subscription: CmbProbeSubscription())
        let inner = CmbManualPublisher<Int, Never>(subscription: CmbProbeSubscription())
        upstream.switchToLatest().subscribe(TrackingSubscriber<Int, Never>())
        upstream.send(inner)
        let outer = try #require(upstream.subscriber)
        #expect(cmbDebugStrings(outer).description == "SwitchToLatest")
        #expect(cmbDebugStrings(outer).playground == "SwitchToLatest")
        #expect(cmbMirrorChildren(outer).isEmpty)
        let side = try #require(inner.subscriber)
        #expect(cmbDebugStrings(side).description == "SwitchToLatest")
        let id = try #require(upstream.subscriberIdentifier)
        #expect(cmbMirrorChildren(side) == ["parentSubscription: \(id)"])
    }
}
