import Testing
import UVCombineCore
import UVCombineTesting

/// The selecting, reducing and debugging operators allocate nothing per
/// element in steady state. Each test warms the path up, then counts the
/// calling thread's mallocs over many elements. Only meaningful optimised
/// (`swift test -c release`).
@Suite("Selecting and reducing allocations",
       .enabled(if: isOptimizedBuild, "allocation counts are meaningful only with -c release"))
struct SelectingAllocationTests {
    /// Sends 1,000 values to warm up, then 10,000 more, returning the
    /// mallocs of the second batch.
    func mallocsPerBatch<F: Error>(_ subject: PassthroughSubject<Int, F>) -> Int {
        for i in 0..<1_000 { subject.send(i) }
        return AllocationCounter.count {
            for i in 1_000..<11_000 { subject.send(i) }
        }
    }

    struct Sample {
        var value: Int
        var other: Int
    }

    @Test func statelessOperatorsAllocateNothingPerElement() {
        let subject = PassthroughSubject<Int, Never>()
        var total = 0
        let c = subject
            .map { (v: Int) -> Int? in v % 3 == 0 ? nil : v }
            .replaceNil(with: 0)
            .map { Sample(value: $0, other: 1) }
            .map(\.value)
            .breakpoint(receiveOutput: { $0 < 0 })
            .setFailureType(to: TestError.self)
            .assertNoFailure()
            .sink { total &+= $0 }
        #expect(mallocsPerBatch(subject) == 0)
        #expect(total > 0)
        c.cancel()
    }

    @Test func keyPathPairsAndTriplesAllocateNothingPerElement() {
        let subject = PassthroughSubject<Int, Never>()
        var total = 0
        let c = subject
            .map { Sample(value: $0, other: 2) }
            .map(\.value, \.other)
            .map { Sample(value: $0.0, other: $0.1) }
            .map(\.value, \.other, \.value)
            .sink { total &+= $0.0 &+ $0.1 &+ $0.2 }
        #expect(mallocsPerBatch(subject) == 0)
        #expect(total > 0)
        c.cancel()
    }

    @Test func ignoreOutputAllocatesNothingPerElement() {
        let subject = PassthroughSubject<Int, Never>()
        var finished = false
        let c = subject.ignoreOutput().sink(receiveCompletion: { _ in finished = true }, receiveValue: { _ in })
        #expect(mallocsPerBatch(subject) == 0)
        subject.send(completion: .finished)
        #expect(finished)
        c.cancel()
    }

    @Test func filteringOperatorsAllocateNothingPerElement() {
        let subject = PassthroughSubject<Int, Never>()
        var total = 0
        let c = subject
            .drop { $0 < 10 }
            .dropFirst(5)
            .map { $0 / 2 }
            .removeDuplicates()
            .prefix { $0 >= 0 }
            .output(in: 3...)
            .sink { total &+= $0 }
        #expect(mallocsPerBatch(subject) == 0)
        #expect(total > 0)
        c.cancel()
    }

    @Test func throwingFilteringOperatorsAllocateNothingPerElement() {
        let subject = PassthroughSubject<Int, Never>()
        var total = 0
        let c = subject
            .tryDrop { $0 < 10 }
            .tryRemoveDuplicates { $0 / 2 == $1 / 2 }
            .tryPrefix { $0 >= 0 }
            .sink(receiveCompletion: { _ in }, receiveValue: { total &+= $0 })
        #expect(mallocsPerBatch(subject) == 0)
        #expect(total > 0)
        c.cancel()
    }

    @Test func scalarReducersAllocateNothingPerElement() {
        let subject = PassthroughSubject<Int, Never>()
        var results: [Int] = []
        results.reserveCapacity(16)
        var flags: [Bool] = []
        flags.reserveCapacity(16)
        var bag: [AnyCancellable] = []
        bag.reserveCapacity(16)
        subject.count().sink { results.append($0) }.store(in: &bag)
        subject.reduce(0) { $0 &+ $1 }.sink { results.append($0) }.store(in: &bag)
        subject.tryReduce(0) { $0 &+ $1 }.sink(receiveCompletion: { _ in }, receiveValue: { results.append($0) })
            .store(in: &bag)
        subject.min().sink { results.append($0) }.store(in: &bag)
        subject.max { $0 < $1 }.sink { results.append($0) }.store(in: &bag)
        subject.last().sink { results.append($0) }.store(in: &bag)
        subject.last { $0 % 2 == 0 }.sink { results.append($0) }.store(in: &bag)
        subject.contains(-1).sink { flags.append($0) }.store(in: &bag)
        subject.contains { $0 < 0 }.sink { flags.append($0) }.store(in: &bag)
        subject.allSatisfy { $0 >= 0 }.sink { flags.append($0) }.store(in: &bag)
        subject.first { $0 < 0 }.sink { results.append($0) }.store(in: &bag)
        #expect(mallocsPerBatch(subject) == 0)
        subject.send(completion: .finished)
        #expect(results == [11_000, 60_494_500, 60_494_500, 0, 10_999, 10_999, 10_998])
        #expect(flags == [false, false, true])
        bag.removeAll()
    }

    @Test func bufferAllocatesNothingPerElementInSteadyState() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = PacedInts()
        subject.buffer(size: 8, prefetch: .byRequest, whenFull: .dropOldest).subscribe(subscriber)
        #expect(mallocsPerBatch(subject) == 0)
        #expect(subscriber.received == 11_000)
        subscriber.cancel()
    }

    @Test func untilOutputFromOperatorsAllocateNothingPerElement() {
        let subject = PassthroughSubject<Int, Never>()
        let start = PassthroughSubject<Void, Never>()
        let stop = PassthroughSubject<Void, Never>()
        var total = 0
        let c = subject
            .drop(untilOutputFrom: start)
            .prefix(untilOutputFrom: stop)
            .sink { total &+= $0 }
        start.send()
        #expect(mallocsPerBatch(subject) == 0)
        #expect(total > 0)
        c.cancel()
    }

    @Test func requestingOneAtATimeThroughTheSubscriptionsAllocatesNothing() {
        // Requests reach these subscriptions through `any Subscription`,
        // where only their unspecialised bodies run.
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = PacedInts()
        subject
            .dropFirst(3)
            .removeDuplicates()
            .tryPrefix { $0 >= 0 }
            .replaceError(with: 0)
            .output(in: 0...)
            .replaceEmpty(with: 0)
            .subscribe(subscriber)
        #expect(mallocsPerBatch(subject) == 0)
        #expect(subscriber.received == 10_997)
        subscriber.cancel()
    }
}

/// Requests one value at a time through the subscription, from inside
/// `receive(_:)`.
private final class PacedInts: Subscriber, Cancellable {
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
