import Testing
import UVCombineCore

/// Combine's rules for `Future` and `Record` subscriptions: lifecycle,
/// misuse and debugging output.
@Suite("Future and Record follow Combine")
struct FutureRecordRulesTests {
    enum Termination: CaseIterable { case cancelled, finished, failed }
    struct Oops: Error {}

    @Test(arguments: Termination.allCases)
    func futureReleasesEverythingOnTermination(_ reason: Termination) {
        weak var weakSubscriber: CompatKeepingSubscriber<Int, Oops>?
        weak var weakFuture: Future<Int, Oops>?
        weak var weakSubscription: AnyObject?
        do {
            var promise: Future<Int, Oops>.Promise?
            let future = Future<Int, Oops> { promise = $0 }
            weakFuture = future
            do {
                let subscriber = CompatKeepingSubscriber<Int, Oops>(initialDemand: .max(1))
                weakSubscriber = subscriber
                future.subscribe(subscriber)
                weakSubscription = subscriber.subscription as AnyObject?
            }
            switch reason {
            case .cancelled: (weakSubscription as? any Subscription)?.cancel()
            case .finished: promise?(.success(1))
            case .failed: promise?(.failure(Oops()))
            }
            #expect(weakSubscriber == nil)
            #expect(weakSubscription == nil)
        }
        #expect(weakFuture == nil)
    }

    @Test func futureConduitMirrorAsCombine() throws {
        let pending = Future<Int, Oops> { _ in }
        let subscriber = CompatKeepingSubscriber<Int, Oops>(initialDemand: .none)
        pending.subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "Future")
        let labels = Mirror(reflecting: subscription).children.map(\.label)
        #expect(labels == ["parent", "downstream", "hasAnyDemand", "subject"])
        #expect(compatMirrorChildren(subscription)[2] == "hasAnyDemand=false")

        let failed = Future<Int, Oops> { $0(.failure(Oops())) }
        let other = CompatKeepingSubscriber<Int, Oops>(initialDemand: .none)
        failed.subscribe(other)
        #expect(compatMirrorChildren(try #require(other.subscription))
                == ["parent=nil", "downstream=nil", "hasAnyDemand=false", "subject=nil"])
    }

    /// Combine's future subscription keeps its future (`parent`) while it
    /// delivers, and lets go of it after (OpenCombine's
    /// `FutureTests.testFutureSuccess` and `testFutureFailure`, written
    /// against Combine, look at `parent` from inside the delivery).
    @Test(arguments: [false, true])
    func futureConduitKeepsItsFutureDuringDelivery(_ fails: Bool) throws {
        final class Seen: @unchecked Sendable {
            var subscription: (any Subscription)?
            var during: [String] = []
        }
        let seen = Seen()
        var promise: Future<Int, Oops>.Promise?
        let future = Future<Int, Oops> { promise = $0 }
        let look = { seen.during = compatMirrorChildren(seen.subscription!) }
        future.subscribe(AnySubscriber<Int, Oops>(
            receiveSubscription: { seen.subscription = $0; $0.request(.unlimited) },
            receiveValue: { _ in look(); return .none },
            receiveCompletion: { if case .failure = $0 { look() } }))
        let fulfil = try #require(promise)
        fulfil(fails ? .failure(Oops()) : .success(1))
        #expect(seen.during.count == 4)
        #expect(seen.during.first?.hasPrefix("parent=") == true)
        #expect(seen.during.first != "parent=nil")
        #expect(seen.during.last != "subject=nil")
        #expect(Array(seen.during[1...2]) == ["downstream=nil", "hasAnyDemand=false"])
        #expect(compatMirrorChildren(try #require(seen.subscription))
                == ["parent=nil", "downstream=nil", "hasAnyDemand=false", "subject=nil"])
    }

    @Test(arguments: [Termination.cancelled, .finished])
    func recordReleasesSubscriberOnTermination(_ reason: Termination) {
        weak var weakSubscriber: CompatKeepingSubscriber<Int, Never>?
        weak var weakSubscription: AnyObject?
        do {
            let record = Record<Int, Never>(output: [1, 2], completion: .finished)
            let subscriber = CompatKeepingSubscriber<Int, Never>(initialDemand: reason == .finished ? .unlimited : .max(1))
            weakSubscriber = subscriber
            record.subscribe(subscriber)
            weakSubscription = subscriber.subscription as AnyObject?
            if reason == .cancelled { subscriber.subscription?.cancel() }
            #expect(String(describing: subscriber.subscription!) == "Cancelled Events")
        }
        #expect(weakSubscriber == nil)
        #expect(weakSubscription == nil)
    }

    @Test func recordAcceptsRequestNoneAndWaitsForDemand() throws {
        let record = Record<Int, Never>(output: [1, 2, 3], completion: .finished)
        let subscriber = CompatKeepingSubscriber<Int, Never>(initialDemand: .none)
        record.subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "[1, 2, 3]")
        #expect(compatMirrorChildren(subscription) == ["sequence=[1, 2, 3]", "completion=finished"])
        subscription.request(.none)
        #expect(subscriber.events == ["subscription([1, 2, 3])"])
        subscription.request(.max(2))
        #expect(subscriber.events == ["subscription([1, 2, 3])", "value(1)", "value(2)"])
        subscription.request(.max(1))
        #expect(subscriber.events.suffix(2) == ["value(3)", "completion"])
        subscription.request(.max(1))
        #expect(subscriber.events.count == 5)
    }

    @Test func recordRecursiveRequestsJoinTheRunningLoop() {
        final class Recursive: Subscriber, @unchecked Sendable {
            var subscription: (any Subscription)?
            var events: [String] = []
            var depth = 0
            var maxDepth = 0
            func receive(subscription: any Subscription) {
                self.subscription = subscription
                subscription.request(.max(1))
            }
            func receive(_ input: Int) -> Subscribers.Demand {
                depth += 1
                maxDepth = max(maxDepth, depth)
                events.append("\(input)")
                subscription?.request(.max(1))
                depth -= 1
                return .none
            }
            func receive(completion: Subscribers.Completion<Never>) { events.append("done") }
        }
        let subscriber = Recursive()
        Record<Int, Never>(output: [1, 2, 3, 4], completion: .finished).subscribe(subscriber)
        #expect(subscriber.events == ["1", "2", "3", "4", "done"])
        #expect(subscriber.maxDepth == 1)
    }
}
