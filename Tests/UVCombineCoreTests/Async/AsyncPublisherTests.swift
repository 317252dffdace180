import Dispatch
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineTesting

@Suite("AsyncPublisher and AsyncThrowingPublisher", .timeLimit(.minutes(1)))
struct AsyncPublisherTests {
    @Test func iteratesEveryValueThenEnds() async {
        var received: [Int] = []
        for await value in [1, 2, 3].publisher.values {
            received.append(value)
        }
        #expect(received == [1, 2, 3])
    }

    @Test func requestsExactlyOneValuePerNext() async {
        let upstream = SignallingPublisher<Int, Never>()
        let consumer = Task {
            var received: [Int] = []
            for await value in upstream.values { received.append(value) }
            return received
        }
        var events = upstream.events.makeAsyncIterator()
        #expect(await events.next() == .request(.max(1)))
        upstream.send(1)
        #expect(await events.next() == .request(.max(1)))
        upstream.send(2)
        #expect(await events.next() == .request(.max(1)))
        upstream.send(completion: .finished)
        #expect(await consumer.value == [1, 2])
    }

    @Test func aCompletionBeforeNextIsKept() async {
        var iterator = Empty<Int, Never>().values.makeAsyncIterator()
        #expect(await iterator.next() == nil)
        #expect(await iterator.next() == nil)
    }

    @Test func noValueIsLostOrDuplicatedAcrossThreads() async {
        let queue = DispatchQueue(label: "uvcombine.values")
        var received: [Int] = []
        for await value in (0..<2_000).publisher.receive(on: queue).values {
            received.append(value)
        }
        #expect(received == Array(0..<2_000))
    }

    @Test func cancellingTheTaskCancelsTheSubscriptionAndEndsTheLoop() async {
        let upstream = SignallingPublisher<Int, Never>()
        let consumer = Task {
            var received: [Int] = []
            for await value in upstream.values { received.append(value) }
            return received
        }
        var events = upstream.events.makeAsyncIterator()
        #expect(await events.next() == .request(.max(1)))
        upstream.send(1)
        #expect(await events.next() == .request(.max(1)))
        consumer.cancel()
        #expect(await events.next() == .cancel)
        #expect(await consumer.value == [1])
    }

    @Test func anAlreadyCancelledTaskEndsAtOnce() async {
        let upstream = SignallingPublisher<Int, Never>()
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let consumer = Task {
            for await _ in gate {}
            var iterator = upstream.values.makeAsyncIterator()
            return await iterator.next()
        }
        consumer.cancel()
        open.finish()
        #expect(await consumer.value == nil)
    }

    @Test func leavingTheLoopCancelsTheSubscription() async {
        let upstream = SignallingPublisher<Int, Never>()
        let consumer = Task {
            for await value in upstream.values where value == 2 {
                break
            }
        }
        var events = upstream.events.makeAsyncIterator()
        #expect(await events.next() == .request(.max(1)))
        upstream.send(1)
        #expect(await events.next() == .request(.max(1)))
        upstream.send(2)
        #expect(await events.next() == .cancel)
        await consumer.value
    }

    // MARK: Throwing

    @Test func throwingSequenceThrowsTheFailureOnceThenEnds() async {
        let upstream = SignallingPublisher<Int, TestError>()
        let consumer = Task { () -> ([Int], TestError?, Int?) in
            var iterator = upstream.values.makeAsyncIterator()
            var received: [Int] = []
            do {
                while let value = try await iterator.next() { received.append(value) }
                return (received, nil, nil)
            } catch {
                let after = try? await iterator.next()
                return (received, error as? TestError, after ?? nil)
            }
        }
        var events = upstream.events.makeAsyncIterator()
        #expect(await events.next() == .request(.max(1)))
        upstream.send(7)
        #expect(await events.next() == .request(.max(1)))
        upstream.send(completion: .failure(.boom))
        let (received, error, after) = await consumer.value
        #expect(received == [7])
        #expect(error == .boom)
        #expect(after == nil)
    }

    @Test func throwingSequenceFinishes() async throws {
        var received: [Int] = []
        for try await value in [1, 2].publisher.setFailureType(to: TestError.self).values {
            received.append(value)
        }
        #expect(received == [1, 2])
    }

    @Test func aFailureBeforeNextIsThrown() async {
        var iterator = Fail<Int, TestError>(error: .other).values.makeAsyncIterator()
        await #expect(throws: TestError.other) { try await iterator.next() }
    }

    @Test func throwingSequenceCancelledReturnsNil() async {
        let upstream = SignallingPublisher<Int, TestError>()
        let consumer = Task { () -> Int?? in
            var iterator = upstream.values.makeAsyncIterator()
            return try? await iterator.next()
        }
        var events = upstream.events.makeAsyncIterator()
        #expect(await events.next() == .request(.max(1)))
        consumer.cancel()
        #expect(await events.next() == .cancel)
        #expect(await consumer.value == .some(nil))
    }

    @Test func typesAreCombines() {
        let never: AsyncPublisher<Just<Int>> = Just(1).values
        let throwing: AsyncThrowingPublisher<Fail<Int, TestError>> = Fail(error: .boom).values
        _ = (never, throwing)
    }
}
