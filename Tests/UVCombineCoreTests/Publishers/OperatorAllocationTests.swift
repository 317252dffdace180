import Testing
import UVCombineCore
import UVCombineTesting

/// Steady-state operator paths must not allocate per element. Each test
/// warms the path up, then counts the calling thread's mallocs over many
/// elements. Only meaningful optimised (`swift test -c release`).
@Suite("Operator allocations", .enabled(if: isOptimizedBuild, "allocation counts are meaningful only with -c release"))
struct OperatorAllocationTests {
    /// Sends `warmUp` then `count` values through `subject`, returning the
    /// mallocs of the second batch.
    func mallocsPerBatch<F: Error>(_ subject: PassthroughSubject<Int, F>, count: Int = 10_000) -> Int {
        for i in 0..<1_000 { subject.send(i) }
        return AllocationCounter.count {
            for i in 0..<count { subject.send(i) }
        }
    }

    @Test func statelessOperatorsAllocateNothingPerElement() {
        let subject = PassthroughSubject<Int, Never>()
        var total = 0
        let c = subject
            .compactMap { $0 % 5 == 0 ? nil : $0 }
            .setFailureType(to: TestError.self)
            .mapError { _ in TestError.other }
            .sink(receiveCompletion: { _ in }, receiveValue: { total &+= $0 })
        #expect(mallocsPerBatch(subject) == 0)
        #expect(total > 0)
        c.cancel()
    }

    @Test func scanAllocatesNothingPerElement() {
        let subject = PassthroughSubject<Int, Never>()
        var last = 0
        let c = subject.scan(0) { $0 &+ $1 }.sink { last = $0 }
        #expect(mallocsPerBatch(subject) == 0)
        #expect(last > 0)
        c.cancel()
    }

    @Test func throwingOperatorsAllocateNothingPerElement() {
        let subject = PassthroughSubject<Int, Never>()
        var total = 0
        let c = subject
            .tryMap { v -> Int in
                if v < 0 { throw TestError.boom }
                return v &* 2
            }
            .tryFilter { $0 % 3 != 0 }
            .tryCompactMap { $0 % 7 == 0 ? nil : $0 }
            .tryScan(0) { $0 &+ $1 }
            .sink(receiveCompletion: { _ in }, receiveValue: { total &+= $0 })
        #expect(mallocsPerBatch(subject) == 0)
        #expect(total != 0)
        c.cancel()
    }

    @Test func replaceErrorAndHandleEventsAllocateNothingPerElement() {
        let subject = PassthroughSubject<Int, TestError>()
        var seen = 0
        var total = 0
        let c = subject
            .handleEvents(receiveOutput: { _ in seen &+= 1 })
            .replaceError(with: -1)
            .sink { total &+= $0 }
        #expect(mallocsPerBatch(subject) == 0)
        #expect(seen == 11_000)
        #expect(total > 0)
        c.cancel()
    }

    @Test func requestingOneAtATimeThroughWrappersAllocatesNothing() {
        // Demand requested through `any Subscription` reaches the wrappers'
        // unspecialised `request`; it must not allocate either.
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = OneAtATime()
        subject
            .tryMap { $0 }
            .handleEvents()
            .replaceError(with: 0)
            .subscribe(subscriber)
        #expect(mallocsPerBatch(subject) == 0)
        #expect(subscriber.received == 11_000)
        subscriber.cancel()
    }

    @Test func sequencePipelineCostIsIndependentOfLength() {
        var total = 0
        func run(_ n: Int) {
            // Erased first: on a Publishers.Sequence, compactMap and scan are
            // Combine's eager specialisations (a new array), not operators.
            _ = (0..<n).publisher
                .eraseToAnyPublisher()
                .compactMap { $0 % 2 == 0 ? $0 : nil }
                .scan(0) { $0 &+ $1 }
                .tryMap { $0 }
                .replaceError(with: 0)
                .sink { total &+= $0 }
        }
        run(10) // warm up
        let small = AllocationCounter.count { run(10) }
        let large = AllocationCounter.count { run(100_000) }
        #expect(large == small)
        #expect(total != 0)
    }

    @Test func sequenceThroughFiveOperatorsStaysSpecialised() {
        // Operators subscribe upstream with `receive(subscriber:)`, not
        // `subscribe(_:)`: the specialiser stops at the second growing
        // recurrence of one generic function on a call chain, which a chain
        // of `subscribe` calls hit at three publishers. Unspecialised, the
        // sequence's iterator allocates per element.
        var total = 0
        func run(_ n: Int) {
            _ = (0..<n).publisher
                .map { $0 &+ 1 }
                .handleEvents()
                .map { $0 &* 2 }
                .filter { $0 > 0 }
                .handleEvents()
                .sink { total &+= $0 }
        }
        run(10) // warm up
        let small = AllocationCounter.count { run(10) }
        let large = AllocationCounter.count { run(100_000) }
        #expect(large == small)
        #expect(total != 0)
    }

    @Test func deepSubjectChainAllocatesNothingPerElement() {
        let subject = PassthroughSubject<Int, TestError>()
        var total = 0
        let first = subject
            .map { (v: Int) -> Int in v &+ 1 }
            .handleEvents()
            .compactMap { (v: Int) -> Int? in v % 11 == 0 ? nil : v }
            .tryMap { (v: Int) -> Int in v &* 2 }
            .replaceError(with: 0)
        let second = first
            .scan(0) { (sum: Int, v: Int) -> Int in sum &+ v }
            .map { (v: Int) -> Int in v &- 1 }
            .tryFilter { (v: Int) -> Bool in v != 5 }
            .tryScan(0) { (acc: Int, v: Int) -> Int in acc ^ v }
            .replaceError(with: 0)
        let c = second
            .setFailureType(to: TestError.self)
            .mapError { (e: TestError) -> TestError in e }
            .sink(receiveCompletion: { _ in }, receiveValue: { total &+= $0 })
        #expect(mallocsPerBatch(subject) == 0)
        #expect(total != 0)
        c.cancel()
    }

    @Test func recordPlaybackCostIsIndependentOfLength() {
        let short = Record<Int, Never>(output: Array(0..<10), completion: .finished)
        let long = Record<Int, Never>(output: Array(0..<100_000), completion: .finished)
        var total = 0
        _ = short.sink { total &+= $0 } // warm up
        let small = AllocationCounter.count { _ = short.sink { total &+= $0 } }
        let large = AllocationCounter.count { _ = long.sink { total &+= $0 } }
        #expect(large == small)
        // One at a time too: each request goes through `any Subscription`.
        short.subscribe(OneAtATime()) // warm up
        let few = OneAtATime()
        let many = OneAtATime()
        let oneByOneSmall = AllocationCounter.count { short.subscribe(few) }
        let oneByOneLarge = AllocationCounter.count { long.subscribe(many) }
        #expect(few.received == 10)
        #expect(many.received == 100_000)
        #expect(oneByOneLarge == oneByOneSmall)
    }
}

/// Requests one value at a time through the subscription (not through the
/// returned demand), the way a hand-written subscriber paces itself.
private final class OneAtATime: Subscriber, Cancellable {
    typealias Input = Int
    typealias Failure = Never
    var subscription: (any Subscription)?
    var received = 0

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        subscription.request(.max(1))
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        received &+= 1
        subscription?.request(.max(1))
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {
        subscription = nil
    }

    func cancel() {
        subscription?.cancel()
        subscription = nil
    }
}
