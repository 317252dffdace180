import Foundation
import Testing
import UVCombineCore
import UVCombineFoundation
import UVCombineTesting

@Suite("Record")
struct RecordTests {
    @Test func builderRecordsValuesAndCompletion() {
        let record = Record<Int, Never> { recording in
            recording.receive(1)
            recording.receive(2)
            recording.receive(completion: .finished)
        }
        #expect(record.recording.output == [1, 2])
        #expect(record.recording.completion == .finished)
        let tracker = TrackingSubscriber<Int, Never>()
        record.subscribe(tracker)
        #expect(tracker.history == ["subscription([1, 2])", "value(1)", "value(2)", "finished"])
    }

    @Test func replaysHonouringDemandOneAtATime() {
        let record = Record<Int, TestError>(output: [1, 2, 3], completion: .failure(.boom))
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .max(1))
        record.subscribe(tracker)
        #expect(tracker.values == [1])
        tracker.request(.max(1))
        #expect(tracker.values == [1, 2])
        #expect(tracker.completion == nil)
        tracker.request(.max(1))
        // The completion follows the last value without further demand.
        #expect(tracker.history == ["subscription([1, 2, 3])", "value(1)", "value(2)", "value(3)", "failure(boom)"])
    }

    @Test func everySubscriberGetsTheWholeRecording() {
        let record = Record<String, Never>(output: ["a", "b"], completion: .finished)
        let a = TrackingSubscriber<String, Never>()
        let b = TrackingSubscriber<String, Never>(initialDemand: .max(1), demandPerValue: { _ in .max(1) })
        record.subscribe(a)
        record.subscribe(b)
        #expect(a.values == ["a", "b"])
        #expect(b.values == ["a", "b"])
        #expect(b.completion == .finished)
    }

    @Test func emptyRecordingCompletesAtOnce() {
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none)
        Record<Int, TestError>(output: [], completion: .failure(.other)).subscribe(tracker)
        #expect(tracker.history == ["subscription(Empty)", "failure(other)"])
        let unset = Record<Int, Never> { _ in }
        #expect(unset.recording.completion == .finished)
    }

    @Test func cancelStopsPlaybackWithoutCompletion() {
        let subscriber = ManualSubscriber<Int, Never>()
        Record<Int, Never>(output: [1, 2, 3], completion: .finished).subscribe(subscriber)
        subscriber.subscription?.request(.max(1))
        subscriber.subscription?.cancel()
        subscriber.subscription?.request(.max(5))
        #expect(subscriber.values == [1])
        #expect(subscriber.completions.isEmpty)
    }

    @Test func cancelDuringTheLastValueSendsNoCompletion() {
        final class Canceller: Subscriber {
            typealias Input = Int
            typealias Failure = Never
            var subscription: (any Subscription)?
            var events: [String] = []
            func receive(subscription: any Subscription) {
                self.subscription = subscription
                subscription.request(.unlimited)
            }
            func receive(_ input: Int) -> Subscribers.Demand {
                events.append("\(input)")
                if input == 2 {
                    subscription?.cancel()
                    subscription = nil
                }
                return .none
            }
            func receive(completion: Subscribers.Completion<Never>) { events.append("completion") }
        }
        let canceller = Canceller()
        Record<Int, Never>(output: [1, 2], completion: .finished).subscribe(canceller)
        #expect(canceller.events == ["1", "2"])
    }

    @Test func cancelReleasesTheSubscriber() {
        weak var weakTracker: TrackingSubscriber<Int, Never>?
        do {
            let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
            weakTracker = tracker
            Record<Int, Never>(output: [1, 2], completion: .finished).subscribe(tracker)
            tracker.cancel()
        }
        #expect(weakTracker == nil)
    }

    @Test func recordingIsCodable() throws {
        let record = Record<Int, TestCodableError>(output: [1, 2], completion: .failure(.init(code: 7)))
        let data = try JSONEncoder().encode(record)
        let decoded = try JSONDecoder().decode(Record<Int, TestCodableError>.self, from: data)
        #expect(decoded.recording.output == [1, 2])
        #expect(decoded.recording.completion == .failure(.init(code: 7)))
        let recording = Record<Int, Never>.Recording(output: [3])
        #expect(recording.completion == .finished)
    }
}

struct TestCodableError: Error, Codable, Equatable {
    let code: Int
}
