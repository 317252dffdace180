import Foundation
import Synchronization
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineFoundation
import UVCombineTesting

/// The element-wise operators as Combine's (issue 16): debugging output,
/// events out of order, misuse, and what they release.
@Suite("Element-wise operators: Combine's debugging output")
struct ElementwiseReflectionTests {
    private struct Point {
        var x = 1
        var y = 2
        var z = 3
    }

    /// The description, mirror labels and playground description of the
    /// subscriber the operator hands its upstream.
    private func reflect<Input, Failure: Error, P: Publisher>(
        _ probe: ElementwiseProbe<Input, Failure>, _ publisher: P
    ) -> ElementwiseReflection {
        publisher.subscribe(TrackingSubscriber<P.Output, P.Failure>(initialDemand: .none))
        return ElementwiseReflection(of: probe.subscriber! as Any)
    }

    private func ints() -> ElementwiseProbe<Int, TestError> { ElementwiseProbe() }

    @Test func passThroughOperatorsReflectNoChildren() {
        var p = ints()
        #expect(reflect(p, p.map { $0 }) == ElementwiseReflection("Map", []))
        p = ints()
        #expect(reflect(p, p.mapError { $0 }) == ElementwiseReflection("MapError", []))
        p = ints()
        #expect(reflect(p, p.filter { _ in true }) == ElementwiseReflection("Filter", []))
        p = ints()
        #expect(reflect(p, p.compactMap { $0 }) == ElementwiseReflection("CompactMap", []))
        p = ints()
        #expect(reflect(p, p.breakpointOnError()) == ElementwiseReflection("Breakpoint", []))
        let optionals = ElementwiseProbe<Int?, Never>()
        #expect(reflect(optionals, optionals.replaceNil(with: 0)) == ElementwiseReflection("Map", []))
        let never = ElementwiseProbe<Int, Never>()
        #expect(reflect(never, never.setFailureType(to: TestError.self)) == ElementwiseReflection("SetFailureType", []))
    }

    @Test func keyPathMapsReflectTheirKeyPaths() {
        let points = ElementwiseProbe<Point, Never>()
        #expect(reflect(points, points.map(\.x)) == ElementwiseReflection("ValueForKey", ["keyPath"]))
        #expect(reflect(points, points.map(\.x, \.y)) == ElementwiseReflection("ValueForKeys", ["keyPath0", "keyPath1"]))
        #expect(reflect(points, points.map(\.x, \.y, \.z))
            == ElementwiseReflection("ValueForKeys", ["keyPath0", "keyPath1", "keyPath2"]))
        points.map(\.x, \.y).subscribe(TrackingSubscriber<(Int, Int), Never>(initialDemand: .none))
        let mirror = (points.subscriber! as? any CustomReflectable)?.customMirror
        let keyPaths = mirror?.children.compactMap { $0.value as? AnyKeyPath }
        #expect(keyPaths == [\Point.x, \Point.y])
    }

    @Test func statefulOperatorsReflectCombinesChildren() {
        var p = ints()
        #expect(reflect(p, p.scan(0, +)) == ElementwiseReflection("Scan", ["downstream", "result"]))
        #expect(ElementwiseReflection.values(of: p.subscriber! as Any).last == "0")
        p = ints()
        #expect(reflect(p, p.tryScan(0, +)) == ElementwiseReflection("TryScan", ["downstream", "status", "result"]))
        p = ints()
        #expect(reflect(p, p.removeDuplicates()) == ElementwiseReflection("RemoveDuplicates", ["downstream", "last"]))
        #expect(ElementwiseReflection.values(of: p.subscriber! as Any).last == "nil")
        p = ints()
        #expect(reflect(p, p.tryRemoveDuplicates { $0 == $1 })
            == ElementwiseReflection("TryRemoveDuplicates", ["downstream", "last"]))
        p = ints()
        #expect(reflect(p, p.prefix { _ in true }) == ElementwiseReflection("PrefixWhile", ["downstream"]))
        p = ints()
        #expect(reflect(p, p.tryPrefix { _ in true }) == ElementwiseReflection("TryPrefixWhile", ["downstream"]))
        p = ints()
        #expect(reflect(p, p.tryFilter { _ in true }) == ElementwiseReflection("TryFilter", ["downstream"]))
        p = ints()
        #expect(reflect(p, p.tryCompactMap { $0 }) == ElementwiseReflection("TryCompactMap", ["downstream"]))
        p = ints()
        #expect(reflect(p, p.encode(encoder: JSONEncoder()))
            == ElementwiseReflection("Encode", ["downstream", "finished", "upstreamSubscription"]))
        #expect(ElementwiseReflection.values(of: p.subscriber! as Any)[1] == "false")
        let data = ElementwiseProbe<Data, TestError>()
        #expect(reflect(data, data.decode(type: Int.self, decoder: JSONDecoder()))
            == ElementwiseReflection("Decode", ["downstream", "finished", "upstreamSubscription"]))
        p = ints()
        #expect(reflect(p, p.catch { _ in Just(0) }) == ElementwiseReflection("Catch", ["downstream", "demand"]))
        #expect(ElementwiseReflection.values(of: p.subscriber! as Any).last == "max(0)")
        p = ints()
        #expect(reflect(p, p.tryCatch { _ in Just(0) }) == ElementwiseReflection("TryCatch", ["downstream", "demand"]))
        p = ints()
        #expect(reflect(p, p.assertNoFailure("PREFIX", file: "SomeFile.swift", line: 1987))
            == ElementwiseReflection("AssertNoFailure", ["file", "line", "prefix"]))
        #expect(ElementwiseReflection.values(of: p.subscriber! as Any) == ["SomeFile.swift", "1987", "PREFIX"])
    }

    @Test func subscriptionsWithoutChildren() {
        var p = ints()
        #expect(reflect(p, p.tryMap { $0 }) == ElementwiseReflection("TryMap", []))
        p = ints()
        #expect(reflect(p, p.dropFirst()) == ElementwiseReflection("Drop", []))
        p = ints()
        #expect(reflect(p, p.drop { _ in true }) == ElementwiseReflection("DropWhile", []))
        p = ints()
        #expect(reflect(p, p.tryDrop { _ in true }) == ElementwiseReflection("TryDropWhile", []))
        p = ints()
        #expect(reflect(p, p.output(in: 1..<3)) == ElementwiseReflection("Output", []))
        p = ints()
        #expect(reflect(p, p.prefix(2)) == ElementwiseReflection("Output", []))
        p = ints()
        #expect(reflect(p, p.handleEvents()) == ElementwiseReflection("HandleEvents", []))
        p = ints()
        #expect(reflect(p, p.print(to: RecordingStream())) == ElementwiseReflection("Print", []))
        p = ints()
        #expect(reflect(p, p.retry(1)) == ElementwiseReflection("Retry", []))
        p = ints()
        #expect(reflect(p, p.replaceError(with: 0)) == ElementwiseReflection("ReplaceError", []))
    }

    /// The subscription the downstream gets reports the same as the
    /// subscriber the upstream got.
    @Test func downstreamSeesTheSameSubscription() {
        let p = ints()
        let subscriber = ManualSubscriber<Int, any Error>()
        p.tryFilter { _ in true }.subscribe(subscriber)
        p.send(subscription: ElementwiseProbeSubscription())
        let subscription = subscriber.subscription! as Any
        #expect(ElementwiseReflection(of: subscription) == ElementwiseReflection("TryFilter", ["downstream"]))
    }
}

@Suite("Element-wise operators: events out of order, as Combine")
struct ElementwiseOutOfOrderTests {
    @Test func valueBeforeSubscriptionIsForwardedOrIgnored() {
        // Forwarded, with the downstream's demand.
        let forwarded = ["value(1)"]
        #expect(ElementwiseOutOfOrder.valueBeforeSubscription { $0.map { $0 } } == (.max(42), forwarded))
        #expect(ElementwiseOutOfOrder.valueBeforeSubscription { $0.filter { _ in true } } == (.max(42), forwarded))
        #expect(ElementwiseOutOfOrder.valueBeforeSubscription { $0.scan(0, +) } == (.max(42), forwarded))
        #expect(ElementwiseOutOfOrder.valueBeforeSubscription { $0.tryMap { $0 } } == (.max(42), forwarded))
        #expect(ElementwiseOutOfOrder.valueBeforeSubscription { $0.tryScan(0, +) } == (.max(42), forwarded))
        #expect(ElementwiseOutOfOrder.valueBeforeSubscription { $0.handleEvents() } == (.max(42), forwarded))
        #expect(ElementwiseOutOfOrder.valueBeforeSubscription { $0.print(to: RecordingStream()) } == (.max(42), forwarded))
        #expect(ElementwiseOutOfOrder.valueBeforeSubscription { $0.output(in: 0..<3) } == (.max(42), forwarded))
        // dropFirst hands the downstream its subscription at once.
        #expect(ElementwiseOutOfOrder.valueBeforeSubscription { $0.dropFirst(0) }
            == (.max(42), ["subscription(Drop)", "value(1)"]))
        let encoded = ElementwiseOutOfOrder.valueBeforeSubscription { $0.encode(encoder: JSONEncoder()) }
        #expect(encoded.demand == .max(42))
        #expect(encoded.history.count == 1)
        // A value decode cannot read fails the stream, also before the
        // subscription.
        let decoded = ElementwiseOutOfOrder.valueBeforeSubscription(Data("x".utf8)) {
            $0.decode(type: Int.self, decoder: JSONDecoder())
        }
        #expect(decoded.demand == .none)
        #expect(decoded.history.count == 1 && decoded.history[0].hasPrefix("failure("))
        // Ignored.
        #expect(ElementwiseOutOfOrder.valueBeforeSubscription { $0.drop { _ in true } } == (.none, []))
        #expect(ElementwiseOutOfOrder.valueBeforeSubscription { $0.tryDrop { _ in true } } == (.none, []))
        #expect(ElementwiseOutOfOrder.valueBeforeSubscription { $0.replaceError(with: 0) } == (.none, []))
    }

    @Test func completionBeforeSubscriptionIsForwardedOrIgnored() {
        #expect(ElementwiseOutOfOrder.completionBeforeSubscription { $0.map { $0 } } == ["finished"])
        #expect(ElementwiseOutOfOrder.completionBeforeSubscription { $0.mapError { $0 } } == ["finished"])
        #expect(ElementwiseOutOfOrder.completionBeforeSubscription { $0.scan(0, +) } == ["finished"])
        #expect(ElementwiseOutOfOrder.completionBeforeSubscription { $0.encode(encoder: JSONEncoder()) } == ["finished"])
        #expect(ElementwiseOutOfOrder.completionBeforeSubscription(of: Data.self) {
            $0.decode(type: Int.self, decoder: JSONDecoder())
        } == ["finished"])
        #expect(ElementwiseOutOfOrder.completionBeforeSubscription { $0.handleEvents() } == ["finished"])
        #expect(ElementwiseOutOfOrder.completionBeforeSubscription { $0.print(to: RecordingStream()) } == ["finished"])
        #expect(ElementwiseOutOfOrder.completionBeforeSubscription { $0.retry(2) } == ["finished"])
        #expect(ElementwiseOutOfOrder.completionBeforeSubscription { $0.dropFirst(0) } == ["subscription(Drop)", "finished"])
        #expect(ElementwiseOutOfOrder.completionBeforeSubscription { $0.tryMap { $0 } } == [])
        #expect(ElementwiseOutOfOrder.completionBeforeSubscription { $0.tryScan(0, +) } == [])
        #expect(ElementwiseOutOfOrder.completionBeforeSubscription { $0.output(in: 0..<3) } == [])
        #expect(ElementwiseOutOfOrder.completionBeforeSubscription { $0.drop { _ in true } } == [])
        #expect(ElementwiseOutOfOrder.completionBeforeSubscription { $0.replaceError(with: 0) } == [])
        #expect(ElementwiseOutOfOrder.completionBeforeSubscription { $0.catch { _ in Just(0) } } == [])
    }

    /// Element-wise operators neither request nor cancel when cancelled
    /// before their upstream subscription; the strict ones (and retry)
    /// cancel the subscription when it comes.
    @Test func cancelBeforeSubscription() {
        #expect(ElementwiseOutOfOrder.cancelBeforeSubscription { $0.tryMap { $0 } } == [])
        #expect(ElementwiseOutOfOrder.cancelBeforeSubscription { $0.tryScan(0, +) } == [])
        #expect(ElementwiseOutOfOrder.cancelBeforeSubscription { $0.encode(encoder: JSONEncoder()) } == [])
        #expect(ElementwiseOutOfOrder.cancelBeforeSubscription(of: Data.self) {
            $0.decode(type: Int.self, decoder: JSONDecoder())
        } == [])
        #expect(ElementwiseOutOfOrder.cancelBeforeSubscription { $0.handleEvents() } == [])
        #expect(ElementwiseOutOfOrder.cancelBeforeSubscription { $0.print(to: RecordingStream()) } == [])
        #expect(ElementwiseOutOfOrder.cancelBeforeSubscription { $0.dropFirst(0) } == [])
        #expect(ElementwiseOutOfOrder.cancelBeforeSubscription { $0.dropFirst(3) } == [])
        #expect(ElementwiseOutOfOrder.cancelBeforeSubscription { $0.drop { _ in true } } == [])
        #expect(ElementwiseOutOfOrder.cancelBeforeSubscription { $0.output(in: 0..<3) } == [])
        #expect(ElementwiseOutOfOrder.cancelBeforeSubscription { $0.replaceError(with: 0) } == [])

        #expect(ElementwiseOutOfOrder.cancelBeforeSubscription { $0.tryFilter { _ in true } } == ["cancel"])
        #expect(ElementwiseOutOfOrder.cancelBeforeSubscription { $0.tryCompactMap { $0 } } == ["cancel"])
        #expect(ElementwiseOutOfOrder.cancelBeforeSubscription { $0.prefix { _ in true } } == ["cancel"])
        #expect(ElementwiseOutOfOrder.cancelBeforeSubscription { $0.tryPrefix { _ in true } } == ["cancel"])
        #expect(ElementwiseOutOfOrder.cancelBeforeSubscription { $0.removeDuplicates() } == ["cancel"])
        #expect(ElementwiseOutOfOrder.cancelBeforeSubscription { $0.tryRemoveDuplicates { $0 == $1 } } == ["cancel"])
        #expect(ElementwiseOutOfOrder.cancelBeforeSubscription { $0.retry(1) } == ["cancel"])
    }

    @Test func requestBeforeSubscription() {
        #expect(ElementwiseOutOfOrder.requestBeforeSubscription { $0.tryMap { $0 } } == [])
        #expect(ElementwiseOutOfOrder.requestBeforeSubscription { $0.tryScan(0, +) } == [])
        #expect(ElementwiseOutOfOrder.requestBeforeSubscription { $0.encode(encoder: JSONEncoder()) } == [])
        #expect(ElementwiseOutOfOrder.requestBeforeSubscription { $0.handleEvents() } == [])
        #expect(ElementwiseOutOfOrder.requestBeforeSubscription { $0.print(to: RecordingStream()) } == [])
        #expect(ElementwiseOutOfOrder.requestBeforeSubscription { $0.drop { _ in true } } == [])
        #expect(ElementwiseOutOfOrder.requestBeforeSubscription { $0.output(in: 0..<3) } == [])
        #expect(ElementwiseOutOfOrder.requestBeforeSubscription { $0.replaceError(with: 0) } == [])
        // Kept and requested together with the elements to drop, or for
        // the attempt.
        #expect(ElementwiseOutOfOrder.requestBeforeSubscription { $0.dropFirst(2) } == ["request(max(3))"])
        #expect(ElementwiseOutOfOrder.requestBeforeSubscription { $0.retry(1) } == ["request(max(1))"])
    }

    @Test func eventsAfterCompletion() {
        // Forwarded by the operators that do not gate (Combine's rule).
        #expect(ElementwiseOutOfOrder.eventsAfterCompletion { $0.tryMap { $0 } } == ["finished", "value(7)"])
        #expect(ElementwiseOutOfOrder.eventsAfterCompletion { $0.tryScan(0, +) } == ["finished", "value(7)"])
        #expect(ElementwiseOutOfOrder.eventsAfterCompletion { $0.output(in: 0..<10) } == ["finished", "value(7)"])
        #expect(ElementwiseOutOfOrder.eventsAfterCompletion { $0.catch { _ in Just(0) } } == ["finished", "value(7)"])
        #expect(ElementwiseOutOfOrder.eventsAfterCompletion { $0.handleEvents() } == ["finished", "value(7)", "failure(boom)"])
        #expect(ElementwiseOutOfOrder.eventsAfterCompletion { $0.print(to: RecordingStream()) }
            == ["finished", "value(7)", "failure(boom)"])
        #expect(ElementwiseOutOfOrder.eventsAfterCompletion { $0.dropFirst(0) } == ["finished", "value(7)", "failure(boom)"])
        // Ignored by the others.
        #expect(ElementwiseOutOfOrder.eventsAfterCompletion { $0.encode(encoder: JSONEncoder()).map { _ in 0 } } == ["finished"])
        #expect(ElementwiseOutOfOrder.eventsAfterCompletion { $0.tryFilter { _ in true } } == ["finished"])
        #expect(ElementwiseOutOfOrder.eventsAfterCompletion { $0.prefix { _ in true } } == ["finished"])
        #expect(ElementwiseOutOfOrder.eventsAfterCompletion { $0.removeDuplicates() } == ["finished"])
        #expect(ElementwiseOutOfOrder.eventsAfterCompletion { $0.drop { _ in false } } == ["finished"])
        #expect(ElementwiseOutOfOrder.eventsAfterCompletion { $0.replaceError(with: 0) } == ["finished"])
        #expect(ElementwiseOutOfOrder.eventsAfterCompletion { $0.retry(1) } == ["finished"])
    }

    @Test func eventsAfterCancel() {
        let cancelledOnce = ["request(max(5))", "cancel"]
        var result = ElementwiseOutOfOrder.eventsAfterCancel { $0.tryMap { $0 } }
        #expect(result.downstream == ["value(7)"] && result.upstream == cancelledOnce)
        result = ElementwiseOutOfOrder.eventsAfterCancel { $0.tryScan(0, +) }
        #expect(result.downstream == ["value(7)"] && result.upstream == cancelledOnce)
        result = ElementwiseOutOfOrder.eventsAfterCancel { $0.output(in: 0..<10) }
        #expect(result.downstream == ["value(7)"] && result.upstream == cancelledOnce)
        result = ElementwiseOutOfOrder.eventsAfterCancel { $0.catch { _ in Just(0) } }
        #expect(result.downstream == ["value(7)"] && result.upstream == cancelledOnce)
        result = ElementwiseOutOfOrder.eventsAfterCancel { $0.handleEvents() }
        #expect(result.downstream == ["value(7)", "finished"] && result.upstream == cancelledOnce)
        result = ElementwiseOutOfOrder.eventsAfterCancel { $0.print(to: RecordingStream()) }
        #expect(result.downstream == ["value(7)", "finished"] && result.upstream == cancelledOnce)
        result = ElementwiseOutOfOrder.eventsAfterCancel { $0.dropFirst(0) }
        #expect(result.downstream == ["value(7)", "finished"] && result.upstream == cancelledOnce)
        for make in gatingOperators {
            let result = ElementwiseOutOfOrder.eventsAfterCancel(make)
            #expect(result.downstream == [] && result.upstream == cancelledOnce)
        }
    }

    /// Operators that deliver nothing once cancelled, as `AnyPublisher`s of
    /// `Int` with `any Error`.
    private var gatingOperators: [(ElementwiseProbe<Int, TestError>) -> AnyPublisher<Int, any Error>] {
        [
            { $0.encode(encoder: JSONEncoder()).map { _ in 0 }.eraseToAnyPublisher() },
            { $0.tryFilter { _ in true }.eraseToAnyPublisher() },
            { $0.tryCompactMap { $0 }.eraseToAnyPublisher() },
            { $0.prefix { _ in true }.mapError { $0 as any Error }.eraseToAnyPublisher() },
            { $0.removeDuplicates().mapError { $0 as any Error }.eraseToAnyPublisher() },
            { $0.drop { _ in false }.mapError { $0 as any Error }.eraseToAnyPublisher() },
            { $0.retry(1).mapError { $0 as any Error }.eraseToAnyPublisher() },
            { $0.replaceError(with: 0).setFailureType(to: (any Error).self).eraseToAnyPublisher() },
        ]
    }

    /// Combine accepts `request(.none)` from these and passes it on.
    @Test func requestNoneIsAccepted() {
        func check<P: Publisher>(_ make: (ElementwiseProbe<Int, TestError>) -> P,
                                 sourceLocation: SourceLocation = #_sourceLocation) {
            let probe = ElementwiseProbe<Int, TestError>()
            let subscriber = ManualSubscriber<P.Output, P.Failure>()
            make(probe).subscribe(subscriber)
            let upstream = ElementwiseProbeSubscription()
            probe.send(subscription: upstream)
            subscriber.subscription?.request(.none)
            #expect(upstream.history == ["request(max(0))"], sourceLocation: sourceLocation)
        }
        check { $0.tryMap { $0 } }
        check { $0.tryScan(0, +) }
        check { $0.encode(encoder: JSONEncoder()) }
        check { $0.handleEvents() }
        check { $0.print(to: RecordingStream()) }
        check { $0.output(in: 0..<3) }
        check { $0.retry(1) }
    }

    @Test func handleEventsRunsItsClosuresAsCombine() {
        let log = ElementwiseLog()
        let probe = ElementwiseProbe<Int, TestError>()
        let subscriber = ManualSubscriber<Int, TestError>()
        probe.handleEvents(receiveSubscription: { _ in log.add("subscription") },
                           receiveOutput: { log.add("output(\($0))") },
                           receiveCompletion: { _ in log.add("completion") },
                           receiveCancel: { log.add("cancel") },
                           receiveRequest: { log.add("request(\($0))") })
            .subscribe(subscriber)
        // Before the subscription: the closures run; nothing reaches upstream.
        probe.subscriberAsSubscription?.request(.max(1))
        probe.subscriberAsSubscription?.cancel()
        let upstream = ElementwiseProbeSubscription()
        probe.send(subscription: upstream)
        #expect(upstream.history == [])
        subscriber.subscription?.request(.max(2))
        subscriber.subscription?.cancel()
        // After the cancel the closures are gone; events still pass.
        subscriber.subscription?.request(.max(3))
        probe.send(5)
        #expect(log.lines == ["request(max(1))", "cancel", "subscription", "request(max(2))", "cancel"])
        #expect(upstream.history == ["request(max(2))", "cancel"])
        #expect(subscriber.values == [5])
    }

    @Test func catchCancelledWhileSubscribingTheReplacementStillForwardsIt() {
        let probe = ElementwiseProbe<Int, TestError>()
        let replacement = ElementwiseProbe<Int, Never>()
        let subscriber = ManualSubscriber<Int, Never>()
        probe.catch { _ in replacement }.subscribe(subscriber)
        probe.send(subscription: ElementwiseProbeSubscription())
        subscriber.subscription?.request(.max(3))
        probe.send(completion: .failure(.boom))
        subscriber.subscription?.cancel() // while awaiting the replacement's subscription
        let second = ElementwiseProbeSubscription()
        replacement.send(subscription: second)
        replacement.send(completion: .finished)
        #expect(second.history == ["request(max(3))"])
        #expect(subscriber.completions.count == 1)
    }
}

@Suite("Element-wise operators: what they release")
struct ElementwiseLifecycleTests {
    /// Every operator in the family, as `AnyPublisher`s over a probe.
    private var operators: [(String, (ElementwiseProbe<Int, TestError>) -> AnyPublisher<Int, any Error>)] {
        func erase<P: Publisher>(_ p: P) -> AnyPublisher<Int, any Error> where P.Output == Int {
            p.mapError { $0 as any Error }.eraseToAnyPublisher()
        }
        return [
            ("map", { erase($0.map { $0 }) }),
            ("keyPath", { erase($0.map(\.bitWidth)) }),
            ("tryMap", { erase($0.tryMap { $0 }) }),
            ("mapError", { erase($0.mapError { $0 }) }),
            ("filter", { erase($0.filter { _ in true }) }),
            ("tryFilter", { erase($0.tryFilter { _ in true }) }),
            ("compactMap", { erase($0.compactMap { $0 }) }),
            ("tryCompactMap", { erase($0.tryCompactMap { $0 }) }),
            ("replaceNil", { erase($0.map { Optional($0) }.replaceNil(with: 0)) }),
            ("scan", { erase($0.scan(0, +)) }),
            ("tryScan", { erase($0.tryScan(0, +)) }),
            ("removeDuplicates", { erase($0.removeDuplicates()) }),
            ("tryRemoveDuplicates", { erase($0.tryRemoveDuplicates { $0 == $1 }) }),
            ("dropFirst", { erase($0.dropFirst()) }),
            ("drop(while:)", { erase($0.drop { _ in false }) }),
            ("tryDrop(while:)", { erase($0.tryDrop { _ in false }) }),
            ("prefix(while:)", { erase($0.prefix { _ in true }) }),
            ("tryPrefix(while:)", { erase($0.tryPrefix { _ in true }) }),
            ("output(in:)", { erase($0.output(in: 0..<10)) }),
            ("handleEvents", { erase($0.handleEvents(receiveOutput: { _ in })) }),
            ("print", { erase($0.print(to: RecordingStream())) }),
            ("breakpoint", { erase($0.breakpoint()) }),
            ("assertNoFailure", { erase($0.catch { _ in Empty<Int, Never>() }.assertNoFailure()) }),
            ("encode", { erase($0.encode(encoder: JSONEncoder()).map(\.count)) }),
            ("decode", { erase($0.map { Data(String($0).utf8) }.decode(type: Int.self, decoder: JSONDecoder())) }),
            ("catch", { erase($0.catch { _ in Just(0) }) }),
            ("tryCatch", { erase($0.tryCatch { _ in Just(0) }) }),
            ("retry", { erase($0.retry(1)) }),
            ("replaceError", { erase($0.replaceError(with: 0)) }),
            ("setFailureType", { erase($0.replaceError(with: 0).setFailureType(to: TestError.self)) }),
        ]
    }

    /// The upstream keeps the operator's subscriber (as a slow or careless
    /// publisher may), yet completion lets go of the upstream subscription.
    @Test func completionReleasesTheUpstreamSubscription() {
        for (name, make) in operators {
            let probe = ElementwiseProbe<Int, TestError>()
            weak var weakUpstream: ElementwiseProbeSubscription?
            let tracker = TrackingSubscriber<Int, any Error>()
            make(probe).subscribe(tracker)
            do {
                let upstream = ElementwiseProbeSubscription()
                weakUpstream = upstream
                probe.send(subscription: upstream)
            }
            probe.send(1)
            probe.send(completion: .finished)
            #expect(tracker.completion != nil, "\(name)")
            #expect(weakUpstream == nil, "\(name) keeps its upstream subscription after completion")
        }
    }

    @Test func cancelReleasesTheUpstreamSubscription() {
        for (name, make) in operators {
            let probe = ElementwiseProbe<Int, TestError>()
            weak var weakUpstream: ElementwiseProbeSubscription?
            let tracker = TrackingSubscriber<Int, any Error>()
            make(probe).subscribe(tracker)
            do {
                let upstream = ElementwiseProbeSubscription()
                weakUpstream = upstream
                probe.send(subscription: upstream)
            }
            probe.send(1)
            tracker.cancel()
            #expect(weakUpstream == nil, "\(name) keeps its upstream subscription after cancel")
        }
    }

    /// Once the upstream lets go of the operator (after completion or
    /// cancel, as a publisher should), nothing keeps the operator's
    /// subscription or the downstream alive.
    @Test func completionAndCancelReleaseTheWholeChain() {
        for (name, make) in operators {
            for cancel in [false, true] {
                let probe = ElementwiseProbe<Int, TestError>()
                weak var weakTracker: TrackingSubscriber<Int, any Error>?
                weak var weakInner: AnyObject?
                do {
                    let tracker = TrackingSubscriber<Int, any Error>()
                    weakTracker = tracker
                    make(probe).subscribe(tracker)
                    weakInner = probe.subscriber.map { $0 as AnyObject }
                    probe.send(subscription: ElementwiseProbeSubscription())
                    probe.send(1)
                    if cancel { tracker.cancel() } else { probe.send(completion: .finished) }
                    probe.release()
                }
                #expect(weakTracker == nil, "\(name): downstream kept alive (cancel: \(cancel))")
                #expect(weakInner == nil, "\(name): subscription kept alive (cancel: \(cancel))")
            }
        }
    }

    /// `retry` lets go of its downstream and of the upstream publisher
    /// itself on completion and cancel, as Combine's does, even while the
    /// upstream still holds the operator.
    @Test func retryReleasesItsDownstream() {
        for cancel in [false, true] {
            let probe = ElementwiseProbe<Int, TestError>()
            weak var weakTracker: ManualSubscriber<Int, TestError>?
            do {
                let subscriber = ManualSubscriber<Int, TestError>()
                weakTracker = subscriber
                probe.retry(0).subscribe(subscriber)
                probe.send(subscription: ElementwiseProbeSubscription())
                if cancel {
                    subscriber.subscription?.cancel()
                } else {
                    probe.send(completion: .failure(.boom))
                }
            }
            // The subscriber holds its subscription (the operator), which
            // no longer holds the subscriber.
            #expect(weakTracker == nil)
            #expect(probe.subscriber != nil)
        }
    }
}

@Suite("Element-wise operators: traps where Combine traps")
struct ElementwiseTrapTests {
    @Test func strictOperatorsTrapOnEventsBeforeSubscription() async {
        await #expect(processExitsWith: .failure) {
            let probe = ElementwiseProbe<Int, TestError>()
            probe.tryFilter { _ in true }.subscribe(TrackingSubscriber<Int, any Error>())
            probe.send(1)
        }
        await #expect(processExitsWith: .failure) {
            let probe = ElementwiseProbe<Int, TestError>()
            probe.tryCompactMap { $0 }.subscribe(TrackingSubscriber<Int, any Error>())
            probe.send(completion: .finished)
        }
        await #expect(processExitsWith: .failure) {
            let probe = ElementwiseProbe<Int, TestError>()
            probe.prefix { _ in true }.subscribe(TrackingSubscriber<Int, TestError>())
            probe.send(1)
        }
        await #expect(processExitsWith: .failure) {
            let probe = ElementwiseProbe<Int, TestError>()
            probe.removeDuplicates().subscribe(TrackingSubscriber<Int, TestError>())
            probe.send(completion: .finished)
        }
        await #expect(processExitsWith: .failure) {
            let probe = ElementwiseProbe<Int, TestError>()
            probe.tryPrefix { _ in true }.subscribe(TrackingSubscriber<Int, any Error>(initialDemand: .none))
            probe.subscriberAsSubscription?.request(.max(1))
        }
    }

    @Test func valueBeyondDemandTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let probe = ElementwiseProbe<Int, TestError>()
            probe.catch { _ in Just(0) }.subscribe(TrackingSubscriber<Int, Never>(initialDemand: .none))
            probe.send(subscription: ElementwiseProbeSubscription())
            probe.send(1)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("Catch received a value beyond the demand requested"))
        await #expect(processExitsWith: .failure) {
            let probe = ElementwiseProbe<Int, TestError>()
            probe.tryCatch { _ in Just(0) }.subscribe(TrackingSubscriber<Int, any Error>(initialDemand: .none))
            probe.send(1)
        }
        await #expect(processExitsWith: .failure) {
            let probe = ElementwiseProbe<Int, TestError>()
            probe.retry(1).subscribe(TrackingSubscriber<Int, TestError>(initialDemand: .none))
            probe.send(subscription: ElementwiseProbeSubscription())
            probe.send(1)
        }
        await #expect(processExitsWith: .failure) {
            let probe = ElementwiseProbe<Int, TestError>()
            probe.replaceError(with: 0).subscribe(TrackingSubscriber<Int, Never>(initialDemand: .none))
            probe.send(subscription: ElementwiseProbeSubscription())
            probe.send(1)
        }
    }

    @Test func upstreamFailingTwiceIntoCatchTraps() async {
        await #expect(processExitsWith: .failure) {
            let probe = ElementwiseProbe<Int, TestError>()
            let replacement = ElementwiseProbe<Int, Never>()
            probe.catch { _ in replacement }.subscribe(TrackingSubscriber<Int, Never>())
            probe.send(subscription: ElementwiseProbeSubscription())
            probe.send(completion: .failure(.boom))
            probe.send(completion: .failure(.boom))
        }
        await #expect(processExitsWith: .failure) {
            let probe = ElementwiseProbe<Int, TestError>()
            let replacement = ElementwiseProbe<Int, Never>()
            probe.tryCatch { _ in replacement }.subscribe(TrackingSubscriber<Int, any Error>())
            probe.send(subscription: ElementwiseProbeSubscription())
            probe.send(completion: .failure(.boom))
            probe.send(completion: .failure(.other))
        }
    }

    @Test func requestNoneTrapsWhereCombineTraps() async {
        await #expect(processExitsWith: .failure) {
            let probe = ElementwiseProbe<Int, TestError>()
            let subscriber = ManualSubscriber<Int, TestError>()
            probe.dropFirst().subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
        await #expect(processExitsWith: .failure) {
            let probe = ElementwiseProbe<Int, TestError>()
            let subscriber = ManualSubscriber<Int, TestError>()
            probe.drop { _ in true }.subscribe(subscriber)
            probe.send(subscription: ElementwiseProbeSubscription())
            subscriber.subscription?.request(.none)
        }
        await #expect(processExitsWith: .failure) {
            let probe = ElementwiseProbe<Int, TestError>()
            let subscriber = ManualSubscriber<Int, any Error>()
            probe.tryFilter { _ in true }.subscribe(subscriber)
            probe.send(subscription: ElementwiseProbeSubscription())
            subscriber.subscription?.request(.none)
        }
    }
}

@Suite("print: whole lines under concurrency")
struct PrintConcurrencyTests {
    /// Two pipelines printing into one stream from two threads at once: each
    /// line stays whole.
    @Test func concurrentEventsWriteWholeLines() {
        let stream = RecordingStream()
        let subjects = [PassthroughSubject<Int, Never>(), PassthroughSubject<Int, Never>()]
        let cancellables = subjects.enumerated().map { index, subject in
            subject.print("p\(index)", to: stream).sink { _ in }
        }
        let count = 300
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            for value in 0..<count { subjects[index].send(value) }
        }
        // Read while the sinks are alive: releasing them cancels, and print
        // would add a "receive cancel" line per pipeline.
        let lines = withExtendedLifetime(cancellables) { stream.lines }
        #expect(lines.count == 2 * (count + 2))
        let wellFormed = lines.allSatisfy { line in
            guard line.hasPrefix("p0: ") || line.hasPrefix("p1: ") else { return false }
            let body = line.dropFirst(4)
            if body == "request unlimited" || body.hasPrefix("receive subscription: (") { return true }
            return body.hasPrefix("receive value: (") && body.hasSuffix(")")
                && Int(body.dropFirst(16).dropLast()) != nil
        }
        #expect(wellFormed)
        for index in 0..<2 {
            let values = lines.filter { $0.hasPrefix("p\(index): receive value: (") }
            #expect(values == (0..<count).map { "p\(index): receive value: (\($0))" })
        }
    }
}

/// A thread-safe list of lines for closures in these tests.
final class ElementwiseLog: @unchecked Sendable {
    // @unchecked Sendable: all mutable state is inside the mutex.
    private let storage = Mutex<[String]>([])
    func add(_ line: String) { storage.withLock { $0.append(line) } }
    var lines: [String] { storage.withLock { $0 } }
}

@Suite("Element-wise operators: a second subscription")
struct ElementwiseSecondSubscriptionTests {
    /// The operators with a subscription of their own (the pass-through
    /// ones hand every subscription to the downstream, as Combine's do).
    private var operators: [(String, (ElementwiseProbe<Int, TestError>) -> AnyPublisher<Int, any Error>)] {
        func erase<P: Publisher>(_ p: P) -> AnyPublisher<Int, any Error> where P.Output == Int {
            p.mapError { $0 as any Error }.eraseToAnyPublisher()
        }
        return [
            ("tryMap", { erase($0.tryMap { $0 }) }),
            ("tryFilter", { erase($0.tryFilter { _ in true }) }),
            ("tryCompactMap", { erase($0.tryCompactMap { $0 }) }),
            ("tryScan", { erase($0.tryScan(0, +)) }),
            ("removeDuplicates", { erase($0.removeDuplicates()) }),
            ("tryRemoveDuplicates", { erase($0.tryRemoveDuplicates { $0 == $1 }) }),
            ("dropFirst", { erase($0.dropFirst()) }),
            ("drop(while:)", { erase($0.drop { _ in false }) }),
            ("tryDrop(while:)", { erase($0.tryDrop { _ in false }) }),
            ("prefix(while:)", { erase($0.prefix { _ in true }) }),
            ("tryPrefix(while:)", { erase($0.tryPrefix { _ in true }) }),
            ("output(in:)", { erase($0.output(in: 0..<10)) }),
            ("handleEvents", { erase($0.handleEvents(receiveOutput: { _ in })) }),
            ("print", { erase($0.print(to: RecordingStream())) }),
            ("encode", { erase($0.encode(encoder: JSONEncoder()).map(\.count)) }),
            ("catch", { erase($0.catch { _ in Just(0) }) }),
            ("tryCatch", { erase($0.tryCatch { _ in Just(0) }) }),
            ("retry", { erase($0.retry(1)) }),
            ("replaceError", { erase($0.replaceError(with: 0)) }),
        ]
    }

    /// A second subscription is cancelled and the first kept; after the
    /// downstream cancels, any further subscription is cancelled too.
    @Test func secondSubscriptionIsCancelled() {
        for (name, make) in operators {
            let probe = ElementwiseProbe<Int, TestError>()
            let subscriber = ManualSubscriber<Int, any Error>()
            make(probe).subscribe(subscriber)
            let first = ElementwiseProbeSubscription()
            let second = ElementwiseProbeSubscription()
            probe.send(subscription: first)
            probe.send(subscription: second)
            // (dropFirst asks the first for the element to drop.)
            let cancels = { first.history.filter { $0 == "cancel" } }
            #expect(second.history == ["cancel"], "\(name)")
            #expect(cancels() == [], "\(name)")
            subscriber.subscription?.cancel()
            #expect(cancels() == ["cancel"], "\(name)")
            let third = ElementwiseProbeSubscription()
            probe.send(subscription: third)
            #expect(third.history == ["cancel"], "\(name)")
        }
    }
}
