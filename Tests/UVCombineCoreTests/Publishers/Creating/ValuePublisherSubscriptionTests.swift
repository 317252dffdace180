import Testing
import UVCombineCore
import UVCombineTesting

// Issue 16 §3, §4, §6 for the subscriptions of Just, Optional.Publisher,
// Result.Publisher, Publishers.Sequence, Empty and Fail: what Combine
// releases and when, which requests it accepts, and how the subscriptions
// describe themselves.
//
// `ManualSubscriber` keeps its subscription strongly, as most subscribers
// do; the subscriber can only go away if the subscription lets go of it.
@Suite("Just, Optional, Result and Sequence subscriptions: lifecycle, misuse, debug output")
struct ValuePublisherSubscriptionTests {
    // MARK: §3 the subscriber is released on completion and on cancel

    @Test func justReleasesItsSubscriberOnceDelivered() {
        weak var weakSubscriber: ManualSubscriber<Int, Never>?
        do {
            let subscriber = ManualSubscriber<Int, Never>()
            weakSubscriber = subscriber
            Just(1).subscribe(subscriber)
            subscriber.subscription?.request(.max(1))
            #expect(subscriber.values == [1])
            #expect(subscriber.completions.count == 1)
        }
        #expect(weakSubscriber == nil)
    }

    @Test func justReleasesItsSubscriberOnCancel() {
        weak var weakSubscriber: ManualSubscriber<Int, Never>?
        do {
            let subscriber = ManualSubscriber<Int, Never>()
            weakSubscriber = subscriber
            Just(1).subscribe(subscriber)
            subscriber.subscription?.cancel()
            subscriber.subscription?.request(.max(1)) // after cancel: nothing
            #expect(subscriber.values.isEmpty && subscriber.completions.isEmpty)
        }
        #expect(weakSubscriber == nil)
    }

    @Test func optionalAndResultReleaseTheirSubscriberOnceDeliveredOrCancelled() {
        weak var delivered: ManualSubscriber<Int, Never>?
        weak var cancelled: ManualSubscriber<Int, TestError>?
        do {
            let a = ManualSubscriber<Int, Never>()
            delivered = a
            Optional(2).publisher.subscribe(a)
            a.subscription?.request(.unlimited)
            #expect(a.values == [2])
            let b = ManualSubscriber<Int, TestError>()
            cancelled = b
            Result<Int, TestError>.Publisher(3).subscribe(b)
            b.subscription?.cancel()
        }
        #expect(delivered == nil)
        #expect(cancelled == nil)
    }

    @Test func sequenceReleasesItsSubscriberWhenFinished() {
        weak var weakSubscriber: ManualSubscriber<Int, Never>?
        do {
            let subscriber = ManualSubscriber<Int, Never>()
            weakSubscriber = subscriber
            [1, 2, 3].publisher.subscribe(subscriber)
            subscriber.subscription?.request(.max(3))
            #expect(subscriber.values == [1, 2, 3])
            #expect(subscriber.completions.count == 1)
        }
        #expect(weakSubscriber == nil)
    }

    @Test func sequenceReleasesItsSubscriberOnCancelHalfWay() {
        weak var weakSubscriber: ManualSubscriber<Int, Never>?
        do {
            let subscriber = ManualSubscriber<Int, Never>()
            weakSubscriber = subscriber
            [1, 2, 3].publisher.subscribe(subscriber)
            subscriber.subscription?.request(.max(1))
            subscriber.subscription?.cancel()
            subscriber.subscription?.request(.max(5))
            #expect(subscriber.values == [1])
            #expect(subscriber.completions.isEmpty)
        }
        #expect(weakSubscriber == nil)
    }

    @Test func sequenceCancelledFromInsideReceiveSendsNothingMore() {
        final class Box {
            var subscription: (any Subscription)?
            var events: [String] = []
        }
        let box = Box()
        let subscriber = AnySubscriber<Int, Never>(
            receiveSubscription: { box.subscription = $0; $0.request(.unlimited) },
            receiveValue: { box.events.append("value(\($0))"); box.subscription?.cancel(); return .none },
            receiveCompletion: { _ in box.events.append("finished") })
        [1, 2, 3].publisher.subscribe(subscriber)
        #expect(box.events == ["value(1)"])
        box.subscription = nil
    }

    // MARK: §4 request(.none)

    @Test func sequenceAcceptsARequestForNothing() {
        let subscriber = ManualSubscriber<Int, Never>()
        [1, 2].publisher.subscribe(subscriber)
        subscriber.subscription?.request(.none) // accepted, as Combine's: adds nothing
        #expect(subscriber.values.isEmpty)
        subscriber.subscription?.request(.max(1))
        #expect(subscriber.values == [1])
    }

    @Test func theEmptySubscriptionAcceptsARequestForNothing() {
        Subscriptions.empty.request(.none)
        Subscriptions.empty.request(.max(1))
        Subscriptions.empty.cancel()
    }

    @Test func justTrapsOnARequestForNothingAsCombineDoes() async {
        await #expect(processExitsWith: .failure) {
            let subscriber = ManualSubscriber<Int, Never>()
            Just(1).subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
    }

    // MARK: §6 description, mirror, playground description

    @Test func justOptionalAndResultDescribeThemselvesAsCombinesDo() throws {
        let cases: [(String, any Subscription)] = [
            ("Just", subscription(of: Just(42))),
            ("Optional", subscription(of: Optional(42).publisher)),
            ("Once", subscription(of: Result<Int, TestError>.Publisher(42))),
        ]
        for (name, subscription) in cases {
            #expect(String(describing: subscription) == name)
            let playground = try #require(subscription as? any CustomPlaygroundDisplayConvertible)
            #expect(playground.playgroundDescription as? String == name)
            let mirror = Mirror(reflecting: subscription)
            #expect(mirror.children.count == 1)
            #expect(mirror.children.first?.label == nil)
            #expect(mirror.children.first?.value as? Int == 42)
        }
    }

    @Test func aNilOptionalAndAFailedResultSendTheEmptySubscription() {
        #expect(String(describing: subscription(of: Optional<Int>.none.publisher)) == "Empty")
        #expect(String(describing: subscription(of: Result<Int, TestError>.Publisher(.boom))) == "Empty")
        #expect(String(describing: subscription(of: Empty<Int, Never>())) == "Empty")
        #expect(String(describing: subscription(of: Fail<Int, TestError>(error: .boom))) == "Empty")
        #expect(String(describing: subscription(of: [Int]().publisher)) == "Empty")
    }

    @Test func theEmptySubscriptionHasNoMirrorChildren() throws {
        let empty = Subscriptions.empty
        #expect(Mirror(reflecting: empty).children.isEmpty)
        let playground = try #require(empty as? any CustomPlaygroundDisplayConvertible)
        #expect(playground.playgroundDescription as? String == "Empty")
    }

    @Test func aSequenceSubscriptionIsNamedByItsSequenceWhileActiveThenSequence() throws {
        let subscriber = ManualSubscriber<Int, Never>()
        (1...3).publisher.subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(String(describing: subscription) == "1...3")
        let playground = try #require(subscription as? any CustomPlaygroundDisplayConvertible)
        #expect(playground.playgroundDescription as? String == "1...3")
        let children = Mirror(reflecting: subscription).children.map { ($0.label, "\($0.value)") }
        #expect(children.map(\.0) == ["sequence"])
        #expect(children.map(\.1) == ["1...3"])
        subscription.request(.unlimited)
        #expect(subscriber.values == [1, 2, 3])
        #expect(String(describing: subscription) == "Sequence")
        // Finished: `sequence` is an empty array of the elements, as
        // Combine's (OpenCombine's reconstruction of its mirror).
        let finished = Mirror(reflecting: subscription).children.map { ($0.label, $0.value) }
        #expect(finished.map(\.0) == ["sequence"])
        #expect((finished.first?.1 as? [Int]) == [])
    }

    @Test func aCancelledSequenceSubscriptionIsNamedSequence() throws {
        let subscriber = ManualSubscriber<Int, Never>()
        [1, 2].publisher.subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        subscription.cancel()
        #expect(String(describing: subscription) == "Sequence")
    }

    /// The subscription `publisher` hands a subscriber.
    private func subscription<P: Publisher>(of publisher: P) -> any Subscription {
        let subscriber = ManualSubscriber<P.Output, P.Failure>()
        publisher.subscribe(subscriber)
        return subscriber.subscription!
    }
}
