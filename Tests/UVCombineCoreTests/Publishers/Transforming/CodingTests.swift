import Foundation
import Testing
import UVCombineCore
import UVCombineFoundation
import UVCombineTesting

@Suite("decode and encode")
struct CodingTests {
    struct Reading: Codable, Equatable {
        let sensor: String
        let celsius: Double
    }

    @Test func decodesJSON() {
        let tracker = TrackingSubscriber<Reading, any Error>()
        Just(Data(#"{"sensor":"a","celsius":21.5}"#.utf8))
            .decode(type: Reading.self, decoder: JSONDecoder())
            .subscribe(tracker)
        #expect(tracker.values == [Reading(sensor: "a", celsius: 21.5)])
        #expect(tracker.history.first == "subscription(Decode)")
        #expect(tracker.history.last == "finished")
    }

    @Test func encodesJSON() throws {
        let tracker = TrackingSubscriber<Data, any Error>()
        Just(Reading(sensor: "b", celsius: -3)).encode(encoder: JSONEncoder()).subscribe(tracker)
        #expect(tracker.history.first == "subscription(Encode)")
        let data = try #require(tracker.values.first)
        #expect(try JSONDecoder().decode(Reading.self, from: data) == Reading(sensor: "b", celsius: -3))
        #expect(tracker.completion != nil)
    }

    @Test func roundTripThroughPropertyLists() {
        let readings = [Reading(sensor: "a", celsius: 1), Reading(sensor: "b", celsius: 2)]
        let tracker = TrackingSubscriber<Reading, any Error>()
        readings.publisher
            .encode(encoder: PropertyListEncoder())
            .decode(type: Reading.self, decoder: PropertyListDecoder())
            .subscribe(tracker)
        #expect(tracker.values == readings)
    }

    @Test func decodingErrorCancelsUpstreamAndFails() {
        let upstream = TestPublisher<Data, Never>()
        let tracker = TrackingSubscriber<Reading, any Error>()
        upstream.decode(type: Reading.self, decoder: JSONDecoder()).subscribe(tracker)
        upstream.send(Data(#"{"sensor":"a","celsius":1}"#.utf8))
        upstream.send(Data("not json".utf8))
        #expect(upstream.subscription?.isCancelled == true)
        upstream.send(Data(#"{"sensor":"c","celsius":3}"#.utf8))
        #expect(tracker.values == [Reading(sensor: "a", celsius: 1)])
        #expect(tracker.completionCount == 1)
        guard case .failure(let error) = tracker.completion else {
            Issue.record("expected a failure")
            return
        }
        #expect(error is DecodingError)
    }

    @Test func encodingErrorCancelsUpstreamAndFails() {
        struct Refuses: Encodable {
            func encode(to encoder: any Encoder) throws { throw TestError.other }
        }
        let upstream = TestPublisher<Refuses, Never>()
        let tracker = TrackingSubscriber<Data, any Error>()
        upstream.encode(encoder: JSONEncoder()).subscribe(tracker)
        upstream.send(Refuses())
        #expect(upstream.subscription?.isCancelled == true)
        #expect(tracker.history == ["subscription(Encode)", "failure(other)"])
    }

    @Test func upstreamFailureIsForwarded() {
        let upstream = TestPublisher<Data, TestError>()
        let tracker = TrackingSubscriber<Reading, any Error>()
        upstream.decode(type: Reading.self, decoder: JSONDecoder()).subscribe(tracker)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(Decode)", "failure(boom)"])
    }

    @Test func oneAtATimeGetsExactlyOnePerRequest() {
        let readings = (1...3).map { Reading(sensor: "s\($0)", celsius: Double($0)) }
        let tracker = TrackingSubscriber<Reading, any Error>(initialDemand: .max(1))
        readings.publisher.encode(encoder: JSONEncoder()).decode(type: Reading.self, decoder: JSONDecoder())
            .subscribe(tracker)
        #expect(tracker.values.count == 1)
        tracker.request(.max(1))
        #expect(tracker.values.count == 2)
        tracker.request(.max(1))
        #expect(tracker.values == readings)
        #expect(tracker.history.last == "finished")
    }

    @Test func cancelReachesUpstreamAndReleasesTheChain() {
        let subject = PassthroughSubject<Reading, Never>()
        weak var weakTracker: TrackingSubscriber<Data, any Error>?
        do {
            let tracker = TrackingSubscriber<Data, any Error>()
            weakTracker = tracker
            subject.encode(encoder: JSONEncoder()).subscribe(tracker)
            subject.send(Reading(sensor: "a", celsius: 0))
            #expect(tracker.values.count == 1)
            tracker.cancel()
        }
        #expect(weakTracker == nil)

        let upstream = TestPublisher<Data, Never>()
        let c = upstream.decode(type: Reading.self, decoder: JSONDecoder())
            .sink(receiveCompletion: { _ in }, receiveValue: { _ in })
        c.cancel()
        #expect(upstream.subscription?.isCancelled == true)
    }

    @Test func customCodersConform() {
        /// A decoder of `String` input, to show the protocol is not tied to `Data`.
        struct LinesDecoder: TopLevelDecoder {
            func decode<T: Decodable>(_ type: T.Type, from input: String) throws -> T {
                try JSONDecoder().decode(type, from: Data(input.utf8))
            }
        }
        let tracker = TrackingSubscriber<Reading, any Error>()
        Just(#"{"sensor":"z","celsius":9}"#).decode(type: Reading.self, decoder: LinesDecoder()).subscribe(tracker)
        #expect(tracker.values == [Reading(sensor: "z", celsius: 9)])
    }
}
