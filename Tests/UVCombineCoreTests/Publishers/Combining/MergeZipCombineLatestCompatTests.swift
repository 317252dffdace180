import Testing
import UVCombineCore
import UVCombineTesting

/// merge, zip, combineLatest (and MergeMany) under Combine's lifecycle,
/// misuse and debug-output rules.
@Suite("merge, zip, combineLatest as Combine")
struct MergeZipCombineLatestCompatTests {
    /// The three operators on two inputs, erased to one output type.
    private static func operators(_ a: CmbManualPublisher<Int, TestError>, _ b: CmbManualPublisher<Int, TestError>)
        -> [(name: String, publisher: AnyPublisher<Int, TestError>)]
    {
        [("Merge", a.merge(with: b).eraseToAnyPublisher()),
         ("Merge", Publishers.MergeMany(a, b).eraseToAnyPublisher()),
         ("Zip", a.zip(b).map { $0 + $1 }.eraseToAnyPublisher()),
         ("CombineLatest", a.combineLatest(b).map { $0 + $1 }.eraseToAnyPublisher())]
    }

    @Test func secondSubscriptionsAreCancelledAndEventsAfterTheEndIgnored() {
        for index in 0..<4 {
            let a = CmbManualPublisher<Int, TestError>()
            let b = CmbManualPublisher<Int, TestError>()
            let (name, publisher) = Self.operators(a, b)[index]
            let tracker = TrackingSubscriber<Int, TestError>()
            publisher.subscribe(tracker)
            let first = CmbProbeSubscription()
            let second = CmbProbeSubscription()
            a.send(subscription: first)
            a.send(subscription: second)
            #expect(second.cancelCount == 1, "\(name)")
            #expect(first.cancelCount == 0, "\(name)")
            let other = CmbProbeSubscription()
            b.send(subscription: other)
            a.send(1)
            b.send(2)
            a.send(completion: .failure(.boom))
            // The failure cancels the other input; later events are ignored.
            #expect(other.cancelCount == 1, "\(name)")
            b.send(3)
            b.send(completion: .finished)
            a.send(completion: .failure(.other))
            #expect(tracker.completionCount == 1, "\(name)")
            #expect(tracker.completion == .failure(.boom), "\(name)")
            let late = CmbProbeSubscription()
            b.send(subscription: late)
            #expect(late.cancelCount == 1, "\(name)")
        }
    }

    /// Combine's merge ignores `request(.none)`; its zip and combineLatest
    /// trap on it (the demand-must-not-be-zero assertion).
    @Test func mergeAcceptsRequestingNone() {
        for index in 0..<2 {
            let a = CmbManualPublisher<Int, TestError>(subscription: CmbProbeSubscription())
            let b = CmbManualPublisher<Int, TestError>(subscription: CmbProbeSubscription())
            let (name, publisher) = Self.operators(a, b)[index]
            let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
            publisher.subscribe(tracker)
            tracker.request(.none)
            a.send(1)
            #expect(tracker.values.isEmpty, "\(name)")
            tracker.request(.max(1))
            a.send(2)
            #expect(tracker.values == [1] || tracker.values == [2], "\(name)")
        }
    }

    @Test func zipTrapsOnRequestingNone() async {
        await #expect(processExitsWith: .failure) {
            let a = CmbManualPublisher<Int, TestError>(subscription: CmbProbeSubscription())
            let b = CmbManualPublisher<Int, TestError>(subscription: CmbProbeSubscription())
            let tracker = TrackingSubscriber<(Int, Int), TestError>(initialDemand: .none)
            a.zip(b).subscribe(tracker)
            tracker.request(.none)
        }
    }

    @Test func combineLatestTrapsOnRequestingNone() async {
        await #expect(processExitsWith: .failure) {
            let a = CmbManualPublisher<Int, TestError>(subscription: CmbProbeSubscription())
            let b = CmbManualPublisher<Int, TestError>(subscription: CmbProbeSubscription())
            let tracker = TrackingSubscriber<(Int, Int), TestError>(initialDemand: .none)
            a.combineLatest(b).subscribe(tracker)
            tracker.request(.none)
        }
    }

    @Test func cancelCancelsEveryInputOnceAndIsFinal() {
        for index in 0..<4 {
            let a = CmbManualPublisher<Int, TestError>(subscription: CmbProbeSubscription())
            let b = CmbManualPublisher<Int, TestError>(subscription: CmbProbeSubscription())
            let (name, publisher) = Self.operators(a, b)[index]
            let subscriber = ManualSubscriber<Int, TestError>()
            publisher.subscribe(subscriber)
            subscriber.subscription?.request(.max(2))
            subscriber.subscription?.cancel()
            subscriber.subscription?.cancel()
            subscriber.subscription?.request(.max(1))
            a.send(1)
            b.send(2)
            a.send(completion: .finished)
            #expect(subscriber.values.isEmpty, "\(name)")
            #expect(subscriber.completions.isEmpty, "\(name)")
        }
    }

    /// After the end nothing is kept in a cycle through the operator: the
    /// subjects, the subscriber and the operator are all released.
    @Test(arguments: 0..<4, 0..<3)
    func everythingIsReleasedAfterTheEnd(_ index: Int, _ ending: Int) {
        weak var weakTracker: TrackingSubscriber<Int, TestError>?
        weak var weakA: PassthroughSubject<Int, TestError>?
        weak var weakB: PassthroughSubject<Int, TestError>?
        do {
            let a = PassthroughSubject<Int, TestError>()
            let b = PassthroughSubject<Int, TestError>()
            weakA = a
            weakB = b
            let publisher: AnyPublisher<Int, TestError>
            switch index {
            case 0: publisher = a.merge(with: b).eraseToAnyPublisher()
            case 1: publisher = Publishers.MergeMany(a, b).eraseToAnyPublisher()
            case 2: publisher = a.zip(b).map { $0 + $1 }.eraseToAnyPublisher()
            default: publisher = a.combineLatest(b).map { $0 + $1 }.eraseToAnyPublisher()
            }
            let tracker = TrackingSubscriber<Int, TestError>()
            weakTracker = tracker
            publisher.subscribe(tracker)
            a.send(1)
            b.send(2)
            switch ending {
            case 0: tracker.cancel()
            case 1: b.send(completion: .failure(.boom))
            default:
                a.send(completion: .finished)
                b.send(completion: .finished)
            }
        }
        #expect(weakTracker == nil)
        #expect(weakA == nil)
        #expect(weakB == nil)
    }

    @Test func debugOutput() throws {
        for index in 0..<4 {
            let a = CmbManualPublisher<Int, TestError>(subscription: CmbProbeSubscription())
            let b = CmbManualPublisher<Int, TestError>(subscription: CmbProbeSubscription())
            let (name, publisher) = Self.operators(a, b)[index]
            let tracker = TrackingSubscriber<Int, TestError>()
            publisher.subscribe(tracker)
            #expect(tracker.subscriptionNames.first == name || tracker.subscriptionNames.first == "Map")
            let side = try #require(a.subscriber)
            #expect(cmbDebugStrings(side).description == name)
            #expect(cmbDebugStrings(side).playground == name)
            let children = cmbMirrorChildren(side)
            #expect(children.count == 1 && children[0].hasPrefix("parentSubscription: 0x"), "\(name)")
            #expect(a.subscriberIdentifier != b.subscriberIdentifier, "\(name)")
        }
    }
}
