import Testing
import UVCombineCore
import UVCombineTesting

@Suite("AsyncSequence.uvPublisher", .timeLimit(.minutes(1)))
struct UVAsyncSequencePublisherTests {
    @Test func publishesEveryElementThenFinishes() async {
        let stream = AsyncStream<Int> { continuation in
            for i in 1...3 { continuation.yield(i) }
            continuation.finish()
        }
        let publisher: UVAsyncSequencePublisher<AsyncStream<Int>> = stream.uvPublisher
        let subscriber = AwaitingSubscriber<Int, Never>()
        publisher.subscribe(subscriber)
        await subscriber.waitForCompletion()
        #expect(subscriber.values == [1, 2, 3])
        #expect(subscriber.completion == .finished)
    }

    @Test func failureTypeIsTheSequences() async {
        let (stream, input) = AsyncThrowingStream.makeStream(of: Int.self)
        let subscriber = AwaitingSubscriber<Int, any Error>()
        stream.uvPublisher.subscribe(subscriber)
        input.yield(1)
        input.finish(throwing: TestError.boom)
        await subscriber.waitForCompletion()
        #expect(subscriber.values == [1])
        if case .failure(let error)? = subscriber.completion {
            #expect(error as? TestError == .boom)
        } else {
            Issue.record("expected a failure, got \(String(describing: subscriber.completion))")
        }
        // AsyncStream cannot fail: its publisher's Failure is Never.
        let never: UVAsyncSequencePublisher<AsyncStream<Int>>.Failure.Type = Never.self
        _ = never
    }

    @Test func pullsOnlyWhileThereIsDemand() async {
        let sequence = CountingSequence(count: 10)
        let subscriber = AwaitingSubscriber<Int, Never>(initialDemand: .max(2))
        sequence.uvPublisher.subscribe(subscriber)
        await subscriber.waitForValues(2)
        // Two elements asked for, two pulled: the task now waits for demand.
        #expect(sequence.nextCalls == 2)
        subscriber.request(.max(3))
        await subscriber.waitForValues(5)
        #expect(subscriber.values == [0, 1, 2, 3, 4])
        #expect(sequence.nextCalls == 5)
        subscriber.request(.unlimited)
        await subscriber.waitForCompletion()
        #expect(subscriber.values == Array(0..<10))
        #expect(subscriber.completion == .finished)
        #expect(sequence.nextCalls == 11)
    }

    @Test func oneElementPerRequest() async {
        let sequence = CountingSequence(count: 3)
        let subscriber = AwaitingSubscriber<Int, Never>(initialDemand: .none)
        sequence.uvPublisher.subscribe(subscriber)
        for n in 1...3 {
            subscriber.request(.max(1))
            await subscriber.waitForValues(n)
            #expect(subscriber.values == Array(0..<n))
            #expect(sequence.nextCalls == n)
        }
    }

    @Test func cancelCancelsTheIteratingTask() async {
        let (terminated, reportTermination) = AsyncStream.makeStream(of: Bool.self)
        let (stream, input) = AsyncStream.makeStream(of: Int.self)
        input.onTermination = { termination in
            if case .cancelled = termination { reportTermination.yield(true) } else { reportTermination.yield(false) }
        }
        let subscriber = AwaitingSubscriber<Int, Never>()
        stream.uvPublisher.subscribe(subscriber)
        input.yield(1)
        await subscriber.waitForValues(1)
        subscriber.cancel()
        var reports = terminated.makeAsyncIterator()
        #expect(await reports.next() == true)
        input.yield(2)
        #expect(subscriber.values == [1])
        #expect(subscriber.completion == nil)
    }

    @Test func cancelWhileWaitingForDemandEndsTheTask() async {
        let (released, reportRelease) = AsyncStream.makeStream(of: Void.self)
        let sequence = CountingSequence(count: 5)
        do {
            let subscriber = AwaitingSubscriber<Int, Never>(initialDemand: .max(1)) {
                reportRelease.yield()
            }
            sequence.uvPublisher.subscribe(subscriber)
            await subscriber.waitForValues(1)
            subscriber.cancel()
        }
        // The subscriber is released once the task has ended and let go of
        // the subscription.
        var releases = released.makeAsyncIterator()
        await releases.next()
        #expect(sequence.nextCalls == 1)
    }

    @Test func explicitInitialiser() async {
        let subscriber = AwaitingSubscriber<Int, Never>()
        UVAsyncSequencePublisher(CountingSequence(count: 2)).subscribe(subscriber)
        await subscriber.waitForCompletion()
        #expect(subscriber.values == [0, 1])
    }
}
