import Synchronization
import Testing
import UVCombineCore
import UVCombineTesting

@Suite("Future and async/await", .timeLimit(.minutes(1)))
struct FutureAsyncTests {
    @Test func asyncClosurePublishesItsResult() async {
        let future = Future { await Task.yield(); return 42 }
        let typed: Future<Int, Never> = future
        #expect(await typed.value == 42)
        let subscriber = AwaitingSubscriber<Int, Never>()
        future.subscribe(subscriber)
        await subscriber.waitForCompletion()
        #expect(subscriber.values == [42])
        #expect(subscriber.completion == .finished)
    }

    @Test func throwingClosureFailsWithItsError() async {
        let future = Future { () async throws -> Int in throw TestError.boom }
        let typed: Future<Int, any Error> = future
        await #expect(throws: TestError.boom) { try await typed.value }
        let subscriber = AwaitingSubscriber<Int, any Error>()
        future.subscribe(subscriber)
        await subscriber.waitForCompletion()
        #expect(subscriber.values.isEmpty)
        if case .failure(let error)? = subscriber.completion {
            #expect(error as? TestError == .boom)
        } else {
            Issue.record("expected a failure, got \(String(describing: subscriber.completion))")
        }
    }

    @Test func throwingClosureThatSucceeds() async throws {
        let future = Future { () async throws -> String in "ok" }
        #expect(try await future.value == "ok")
    }

    @Test func theOperationRunsOnceForEverySubscriber() async {
        let runs = Counter()
        let future = Future { () async -> Int in
            runs.increment()
            return 1
        }
        #expect(await future.value == 1)
        #expect(await future.value == 1)
        let subscriber = AwaitingSubscriber<Int, Never>()
        future.subscribe(subscriber)
        await subscriber.waitForCompletion()
        #expect(runs.count == 1)
    }

    @Test func valueWaitsForAPromiseFulfilledLater() async {
        let promise = Mutex<Future<Int, Never>.Promise?>(nil)
        let future = Future<Int, Never> { fulfil in promise.withLock { $0 = fulfil } }
        let waiter = Task { await future.value }
        promise.withLock { $0 }?(.success(7))
        #expect(await waiter.value == 7)
    }

    @Test func valueOfAFailedFutureThrowsItsFailure() async {
        let future = Future<Int, TestError> { $0(.failure(.other)) }
        await #expect(throws: TestError.other) { try await future.value }
    }

    @Test func cancellingTheWaitingTaskThrowsCancellationError() async {
        let future = Future<Int, TestError> { _ in } // never fulfilled
        let waiter = Task { try await future.value }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
    }
}
