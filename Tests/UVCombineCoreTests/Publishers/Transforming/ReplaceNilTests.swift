import Testing
import UVCombineCore
import UVCombineTesting

@Suite("replaceNil and map with key paths")
struct ReplaceNilTests {
    @Test func replaceNilIsAMap() {
        let map: Publishers.Map<Publishers.Sequence<[Int?], Never>, Int> = [1, nil, 3].publisher.replaceNil(with: 0)
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(2))
        map.subscribe(tracker)
        #expect(tracker.values == [1, 0])
        tracker.request(.max(1))
        #expect(tracker.history == ["subscription([Optional(1), nil, Optional(3)])", "value(1)", "value(0)", "value(3)", "finished"])
    }

    @Test func replaceNilContract() {
        let upstream = TestPublisher<Int?, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        upstream.replaceNil(with: -1).subscribe(tracker)
        upstream.send(nil)
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(TestSubscription)", "value(-1)", "failure(boom)"])
        let c = upstream.replaceNil(with: 0).sink(receiveCompletion: { _ in }, receiveValue: { _ in })
        c.cancel()
        #expect(upstream.subscription?.isCancelled == true)
    }

    struct Point {
        var x: Int
        var y: Int
        var z: Int
    }

    @Test func mapKeyPaths() {
        let points = [Point(x: 1, y: 2, z: 3), Point(x: 4, y: 5, z: 6)].publisher
        let xs = TrackingSubscriber<Int, Never>()
        let one: Publishers.MapKeyPath<Publishers.Sequence<[Point], Never>, Int> = points.map(\.x)
        one.subscribe(xs)
        #expect(xs.history == ["subscription(\([Point(x: 1, y: 2, z: 3), Point(x: 4, y: 5, z: 6)]))", "value(1)", "value(4)",
                               "finished"])
        var pairs: [String] = []
        _ = points.map(\.x, \.y).sink { pairs.append("\($0.0),\($0.1)") }
        #expect(pairs == ["1,2", "4,5"])
        var triples: [String] = []
        _ = points.map(\.x, \.y, \.z).sink { triples.append("\($0.0),\($0.1),\($0.2)") }
        #expect(triples == ["1,2,3", "4,5,6"])
    }

    @Test func mapKeyPathDemandAndCompletionPassThrough() {
        let upstream = TestPublisher<Point, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .max(1), demandPerValue: { _ in .max(2) })
        upstream.map(\.y).subscribe(tracker)
        #expect(upstream.subscription?.requested == [.max(1)])
        #expect(upstream.send(Point(x: 0, y: 9, z: 0)) == .max(2))
        upstream.send(completion: .failure(.boom))
        #expect(tracker.history == ["subscription(TestSubscription)", "value(9)", "failure(boom)"])
        let paced = OneByOne<(Int, Int), Never>()
        [Point(x: 1, y: 2, z: 3), Point(x: 4, y: 5, z: 6)].publisher.map(\.x, \.z).subscribe(paced)
        #expect(paced.values.map { "\($0.0)\($0.1)" } == ["13", "46"])
    }

    @Test func mapKeyPathContract() {
        OperatorChecks.cancelReleasesTheChain { $0.map(\.bitWidth) }
        OperatorChecks.cancelReleasesTheChain { $0.map(\.bitWidth, \.nonzeroBitCount) }
        OperatorChecks.cancelReleasesTheChain { $0.map(\.bitWidth, \.nonzeroBitCount, \.leadingZeroBitCount) }
        let upstream = TestPublisher<Point, Never>()
        let c = upstream.map(\.x, \.y, \.z).sink { _ in }
        c.cancel()
        #expect(upstream.subscription?.cancelCount == 1)
    }
}
