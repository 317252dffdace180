import Testing
import UVCombineCore
import UVCombineTesting

@Suite("Optional.Publisher")
struct OptionalPublisherTests {
    @Test func valueOnFirstDemandThenFinished() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        Optional(3).publisher.subscribe(tracker)
        #expect(tracker.history == ["subscription(Optional)"])
        tracker.request(.max(1))
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription(Optional)", "value(3)", "finished"])
    }

    @Test func nilFinishesAtOnce() {
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        Optional<Int>.none.publisher.subscribe(tracker)
        #expect(tracker.history == ["subscription(Empty)", "finished"])
    }

    @Test func cancelBeforeDemandSendsNothing() {
        let subscriber = ManualSubscriber<Int, Never>()
        Optional(4).publisher.subscribe(subscriber)
        subscriber.subscription?.cancel()
        subscriber.subscription?.request(.max(1))
        #expect(subscriber.values == [])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func cancelReleasesTheSubscriber() {
        weak var weakTracker: TrackingSubscriber<Int, Never>?
        do {
            let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
            weakTracker = tracker
            Optional(3).publisher.subscribe(tracker)
            tracker.cancel()
        }
        #expect(weakTracker == nil)
    }

    @Test func operatorsAreAppliedAtOnce() {
        let two = Optional(2).publisher
        #expect(two.map { $0 * 3 } == Optional(6).publisher)
        #expect(two.filter { $0 > 5 } == Optional<Int>.none.publisher)
        #expect(two.compactMap { $0 > 1 ? "\($0)" : nil } == Optional("2").publisher)
        #expect(two.scan(10) { $0 + $1 } == Optional(12).publisher)
        #expect(two.replaceError(with: 0) == two)
        #expect(Just(3).filter { $0 > 5 } == Optional<Int>.none.publisher)
        #expect(Just(3).filter { $0 < 5 } == Optional(3).publisher)
        #expect(Just("7").compactMap { Int($0) } == Optional(7).publisher)
        #expect(Just("x").compactMap { Int($0) } == Optional<Int>.none.publisher)
    }
}
