#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import Testing
import UVCombineCore
import UVCombineTesting

@Suite("assertNoFailure and breakpoint")
struct DebuggingOperatorTests {
    // MARK: assertNoFailure

    @Test func assertNoFailurePassesValuesDemandAndFinish() {
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: { _ in .max(2) })
        upstream.assertNoFailure().subscribe(tracker)
        #expect(upstream.subscription?.requested == [.max(1)])
        #expect(upstream.send(1) == .max(2))
        upstream.send(completion: .finished)
        #expect(tracker.history == ["subscription(TestSubscription)", "value(1)", "finished"])
        let c = upstream.assertNoFailure().sink { _ in }
        c.cancel()
        #expect(upstream.subscription?.isCancelled == true)
    }

    @Test func assertNoFailureTrapsWithPrefixFileAndLine() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let upstream = TestPublisher<Int, TestError>()
            let c = upstream.assertNoFailure("numbers", file: "Feed.swift", line: 42).sink { _ in }
            upstream.send(completion: .failure(.boom))
            c.cancel()
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("numbers: boom"))
        #expect(stderr.contains("Feed.swift:42"))
    }

    @Test func assertNoFailureWithoutPrefixShowsTheError() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Fail<Int, TestError>(error: .other).assertNoFailure().sink { _ in }
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("Fatal error: other"))
    }

    // MARK: breakpoint

    @Test func breakpointClosuresSeeEveryEventAndPassItOn() {
        let box = Mutexed()
        let upstream = TestPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .max(1), demandPerValue: { _ in .max(1) })
        upstream.breakpoint(
            receiveSubscription: { _ in box.append("subscription"); return false },
            receiveOutput: { box.append("value(\($0))"); return false },
            receiveCompletion: { box.append("\($0)"); return false }
        ).subscribe(tracker)
        #expect(upstream.send(1) == .max(1))
        upstream.send(completion: .failure(.boom))
        #expect(box.value == ["subscription", "value(1)", "failure(boom)"])
        #expect(tracker.history == ["subscription(TestSubscription)", "value(1)", "failure(boom)"])
    }

    @Test func breakpointOnErrorPassesAFinish() {
        let tracker = TrackingSubscriber<Int, Never>()
        [1, 2].publisher.breakpointOnError().subscribe(tracker)
        #expect(tracker.history == ["subscription([1, 2])", "value(1)", "value(2)", "finished"])
        let upstream = TestPublisher<Int, Never>()
        let c = upstream.breakpoint().sink { _ in }
        c.cancel()
        #expect(upstream.subscription?.isCancelled == true)
    }

    @Test func contract() {
        OperatorChecks.cancelReleasesTheChain { $0.assertNoFailure() }
        OperatorChecks.completionReleasesTheChain { $0.assertNoFailure() }
        OperatorChecks.cancelReleasesTheChain { $0.breakpoint(receiveOutput: { _ in false }) }
        OperatorChecks.completionReleasesTheChain { $0.breakpointOnError() }
    }

    @Test func breakpointRaisesSIGTRAPWhenAClosureSaysSo() async {
        await #expect(processExitsWith: .signal(SIGTRAP)) {
            _ = [1, 2, 3].publisher.breakpoint(receiveOutput: { $0 == 2 }).sink { _ in }
        }
    }

    @Test func breakpointOnErrorRaisesSIGTRAPOnFailure() async {
        await #expect(processExitsWith: .signal(SIGTRAP)) {
            _ = Fail<Int, TestError>(error: .boom).breakpointOnError()
                .sink(receiveCompletion: { _ in }, receiveValue: { _ in })
        }
    }
}

/// Appends strings from closures that may not capture a `var`.
private final class Mutexed: Sendable {
        private let lock = Mutex<[String]>([])
    func append(_ s: String) { lock.withLock { $0.append(s) } }
    var value: [String] { lock.withLock { $0 } }
}
