import Testing
import UVCombineCore
import UVCombineTesting

@Suite("Concatenate")
struct ConcatenateTests {
    @Test func appendAndPrependVariants() {
        func values<P: Publisher>(_ publisher: P) -> [Int] where P.Output == Int, P.Failure == Never {
            let tracker = TrackingSubscriber<Int, Never>()
            publisher.subscribe(tracker)
            #expect(tracker.completion == .finished)
            return tracker.values
        }
        let upstream = Empty<Int, Never>().append(5, 6)
        #expect(values(upstream) == [5, 6])
        #expect(values(Empty<Int, Never>().append(1...3)) == [1, 2, 3])
        #expect(values(Just(1).append(Just(2))) == [1, 2])
        #expect(values(Empty<Int, Never>().prepend(1, 2)) == [1, 2])
        #expect(values(Empty<Int, Never>().prepend(stride(from: 0, to: 6, by: 2))) == [0, 2, 4])
        #expect(values(Just(3).prepend(Just(1))) == [1, 3])
        #expect(values(Just(2).prepend(Empty()).append(Empty()).append(9)) == [2, 9])
    }

    @Test func sequencesAndJustFuseIntoOneSequence() {
        let appended: Publishers.Sequence<[Int], Never> = [1].publisher.append(2, 3)
        let appendedSequence: Publishers.Sequence<[Int], Never> = [1].publisher.append(2...3)
        let appendedPublisher: Publishers.Sequence<[Int], Never> = [1].publisher.append([2, 3].publisher)
        let prepended: Publishers.Sequence<[Int], Never> = [3].publisher.prepend(1, 2)
        let prependedSequence: Publishers.Sequence<[Int], Never> = [3].publisher.prepend(1...2)
        let prependedPublisher: Publishers.Sequence<[Int], Never> = [3].publisher.prepend([1, 2].publisher)
        #expect(appended.sequence == [1, 2, 3])
        #expect(appendedSequence.sequence == [1, 2, 3])
        #expect(appendedPublisher.sequence == [1, 2, 3])
        #expect(prepended.sequence == [1, 2, 3])
        #expect(prependedSequence.sequence == [1, 2, 3])
        #expect(prependedPublisher.sequence == [1, 2, 3])
        let justAppended: Publishers.Sequence<[Int], Never> = Just(1).append(2, 3)
        let justAppendedSequence: Publishers.Sequence<[Int], Never> = Just(1).append(2...3)
        let justPrepended: Publishers.Sequence<[Int], Never> = Just(3).prepend(1, 2)
        let justPrependedSequence: Publishers.Sequence<[Int], Never> = Just(3).prepend(1...2)
        #expect(justAppended.sequence == [1, 2, 3])
        #expect(justAppendedSequence.sequence == [1, 2, 3])
        #expect(justPrepended.sequence == [1, 2, 3])
        #expect(justPrependedSequence.sequence == [1, 2, 3])
    }

    @Test func suffixIsSubscribedOnlyAfterThePrefixFinishes() {
        let prefix = TestPublisher<Int, TestError>()
        let suffix = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        prefix.append(suffix).subscribe(tracker)
        prefix.send(1)
        #expect(suffix.subscription == nil)
        prefix.send(completion: .finished)
        #expect(suffix.subscription?.requested == [.unlimited])
        suffix.send(2)
        suffix.send(completion: .finished)
        #expect(tracker.history == ["subscription(Concatenate)", "value(1)", "value(2)", "finished"])
    }

    @Test func prefixFailureNeverSubscribesTheSuffix() {
        let prefix = TestPublisher<Int, TestError>()
        let suffix = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        suffix.prepend(prefix).subscribe(tracker)
        prefix.send(completion: .failure(.boom))
        #expect(suffix.subscription == nil)
        #expect(tracker.history == ["subscription(Concatenate)", "failure(boom)"])
    }

    @Test func suffixFailurePassesThrough() {
        let tracker = TrackingSubscriber<Int, TestError>()
        Just(1).setFailureType(to: TestError.self).append(Fail(error: .other)).subscribe(tracker)
        #expect(tracker.history == ["subscription(Concatenate)", "value(1)", "failure(other)"])
    }

    // MARK: Demand

    @Test func remainingDemandCarriesToTheSuffix() {
        let prefix = TestPublisher<Int, Never>()
        let suffix = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(3), demandPerValue: { $0 == 1 ? .max(2) : .none })
        prefix.append(suffix).subscribe(tracker)
        #expect(prefix.subscription?.requested == [.max(3)])
        #expect(prefix.send(1) == .max(2))
        prefix.send(2)
        prefix.send(completion: .finished)
        // 3 + 2 requested, 2 delivered.
        #expect(suffix.subscription?.requested == [.max(3)])
    }

    @Test func prefixValuesBeyondTheDemandAreDropped() {
        let prefix = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        prefix.append(9).subscribe(tracker)
        prefix.send(1)
        prefix.send(2)
        prefix.send(completion: .finished)
        #expect(tracker.values == [1])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(Concatenate)", "value(1)", "value(9)", "finished"])
    }

    @Test func exactlyOneValuePerRequestAcrossTheBoundary() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        (1...2).publisher.append(3, 4).subscribe(tracker)
        for n in 1...4 {
            tracker.request(.max(1))
            #expect(tracker.values == Array(1...n))
        }
        #expect(tracker.completion == .finished)
    }

    @Test func noDemandMeansNoRequestToTheSuffix() {
        let suffix = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        Empty<Int, Never>().append(suffix).subscribe(tracker)
        #expect(suffix.subscription?.requested == [])
        tracker.request(.max(4))
        #expect(suffix.subscription?.requested == [.max(4)])
    }

    // MARK: Cancellation

    @Test func cancelReachesThePrefixAndReleasesTheSuffix() {
        let prefix = TestPublisher<Int, Never>()
        weak var weakSuffix: PassthroughSubject<Int, Never>?
        let tracker = TrackingSubscriber<Int, Never>()
        do {
            let suffix = PassthroughSubject<Int, Never>()
            weakSuffix = suffix
            prefix.append(suffix).subscribe(tracker)
        }
        #expect(weakSuffix != nil)
        tracker.cancel()
        #expect(prefix.subscription?.isCancelled == true)
        #expect(weakSuffix == nil)
        prefix.send(completion: .finished)
        #expect(tracker.history == ["subscription(Concatenate)"])
    }

    @Test func cancelAfterTheSwitchReachesTheSuffix() {
        let prefix = TestPublisher<Int, Never>()
        let suffix = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        prefix.append(suffix).subscribe(tracker)
        prefix.send(completion: .finished)
        tracker.cancel()
        #expect(suffix.subscription?.isCancelled == true)
        #expect(prefix.subscription?.isCancelled == false)
        suffix.send(1)
        #expect(tracker.values.isEmpty)
    }

    @Test func everythingDeinitialisesAfterCancel() {
        weak var weakPrefix: PassthroughSubject<Int, Never>?
        weak var weakInner: AnyObject?
        do {
            let prefix = PassthroughSubject<Int, Never>()
            let catcher = SubscriptionCatcher<Int, Never>()
            prefix.append(1, 2).subscribe(catcher)
            prefix.send(0)
            #expect(catcher.values == [0])
            weakPrefix = prefix
            weakInner = catcher.subscriptionObject
            catcher.cancel()
        }
        #expect(weakPrefix == nil)
        #expect(weakInner == nil)
    }

    @Test func equatable() {
        #expect(Publishers.Concatenate(prefix: Just(1), suffix: Just(2)) == Just(1).append(Just(2)))
    }
}
