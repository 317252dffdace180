import Dispatch
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineTesting

@Suite("measureInterval")
struct MeasureIntervalTests {
    typealias Stride = DispatchQueue.SchedulerTimeType.Stride

    @Test func measuresFromSubscriptionThenBetweenValues() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Stride, Never>()
        upstream.measureInterval(using: scheduler).subscribe(tracker)
        scheduler.advance(by: .milliseconds(5))
        upstream.send(1)
        scheduler.advance(by: .seconds(2))
        upstream.send(2)
        upstream.send(3)
        upstream.send(completion: .finished)
        #expect(tracker.values == [.milliseconds(5), .seconds(2), .zero])
        #expect(tracker.completion == .finished)
    }

    @Test func failurePassesThrough() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Stride, TestError>()
        upstream.measureInterval(using: scheduler).subscribe(tracker)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(MeasureInterval)", "failure(boom)"])
    }

    @Test func demandPassesThrough() {
        let scheduler = DispatchQueue.test
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Stride, Never>(initialDemand: .max(1), demandPerValue: { _ in .max(2) })
        upstream.measureInterval(using: scheduler).subscribe(tracker)
        #expect(upstream.subscription?.requested == [.max(1)])
        // As in Combine, the subscriber's demand for a value is requested
        // upstream, and `receive(_:)` returns `.none`.
        #expect(upstream.send(1) == .none)
        tracker.request(.max(3))
        #expect(upstream.subscription?.requested == [.max(1), .max(2), .max(3)])
    }

    @Test func oneValuePerRequestWithASequence() {
        let tracker = TrackingSubscriber<Stride, Never>(initialDemand: .max(1))
        (1...3).publisher.measureInterval(using: DispatchQueue.test).subscribe(tracker)
        #expect(tracker.values.count == 1)
        tracker.request(.max(1))
        #expect(tracker.values.count == 2)
    }

    @Test func cancelReachesUpstreamAndReleasesTheInner() {
        let upstream = TestPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Stride, Never>()
        upstream.measureInterval(using: DispatchQueue.test).subscribe(tracker)
        tracker.cancel()
        #expect(upstream.subscription?.isCancelled == true)
        let subject = PassthroughSubject<Int, Never>()
        let probe = SubscriptionProbe<Stride, Never>()
        subject.measureInterval(using: DispatchQueue.test).subscribe(probe)
        probe.cancelAndRelease()
        #expect(probe.weakSubscription == nil)
    }
}
