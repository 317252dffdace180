import Testing
import UVCombineCore

/// Carries an iterator copy into a task; the copies share one
/// subscription, which is what the tests exercise.
private struct Handed<Value>: @unchecked Sendable {
    let value: Value
}

/// Several tasks waiting in `next()` on one iterator at once, as Combine
/// allows: each waiting call requests one value; values go to the calls in
/// turn; a completion or a cancelled waiting task ends every waiting call.
/// Combine's rules for failures and unrequested values come from
/// OpenCombine's reconstruction and its tests
/// (`PublisherConcurrencyTests.testThrowingReceiveInputBeforeSubscription`,
/// `testThrowingCrashesWhenReceivingUnwantedInput`); Apple documents neither.
@Suite("AsyncPublisher: several next() at once", .timeLimit(.minutes(1)))
struct AsyncPublisherConcurrentNextTests {
    @Test func eachWaitingCallRequestsOneValueAndGetsOne() async {
        let upstream = SignallingPublisher<Int, Never>()
        let iterator = Handed(value: upstream.values.makeAsyncIterator())
        var events = upstream.events.makeAsyncIterator()
        let first = Task { var it = iterator.value; return await it.next() }
        #expect(await events.next() == .request(.max(1)))
        let second = Task { var it = iterator.value; return await it.next() }
        #expect(await events.next() == .request(.max(1)))
        upstream.send(1)
        upstream.send(2)
        #expect(await first.value == 1)
        #expect(await second.value == 2)
    }

    @Test func cancellingOneWaitingTaskEndsEveryWaitingCall() async {
        let upstream = SignallingPublisher<Int, Never>()
        let iterator = Handed(value: upstream.values.makeAsyncIterator())
        var events = upstream.events.makeAsyncIterator()
        let first = Task { var it = iterator.value; return await it.next() }
        #expect(await events.next() == .request(.max(1)))
        let second = Task { var it = iterator.value; return await it.next() }
        #expect(await events.next() == .request(.max(1)))
        second.cancel()
        #expect(await events.next() == .cancel)
        #expect(await first.value == nil)
        #expect(await second.value == nil)
        var it = iterator.value
        #expect(await it.next() == nil) // and the iteration stays ended
    }

    @Test func aCompletionEndsEveryWaitingCall() async {
        let upstream = SignallingPublisher<Int, Never>()
        let iterator = Handed(value: upstream.values.makeAsyncIterator())
        var events = upstream.events.makeAsyncIterator()
        let first = Task { var it = iterator.value; return await it.next() }
        #expect(await events.next() == .request(.max(1)))
        let second = Task { var it = iterator.value; return await it.next() }
        #expect(await events.next() == .request(.max(1)))
        upstream.send(completion: .finished)
        #expect(await first.value == nil)
        #expect(await second.value == nil)
    }

    @Test func aFailureAfterAValueReachesTheNextWaitingCall() async throws {
        struct Boom: Error {}
        let upstream = SignallingPublisher<Int, any Error>()
        let iterator = Handed(value: upstream.values.makeAsyncIterator())
        var events = upstream.events.makeAsyncIterator()
        let first = Task { var it = iterator.value; return try await it.next() }
        #expect(await events.next() == .request(.max(1)))
        let second = Task { var it = iterator.value; return try await it.next() }
        #expect(await events.next() == .request(.max(1)))
        upstream.send(1)
        upstream.send(completion: .failure(Boom()))
        #expect(try await first.value == 1)
        await #expect(throws: Boom.self) { try await second.value }
    }

    // `Late` keeps `AnySubscriber(subscriber)` in a property: in release
    // builds this once crashed, the box having been promoted to the stack
    // of `makeAsyncIterator` (see AnySubscriberStorageTests).
    @Test
    func waitingCallsBeforeTheSubscriptionRequestTogether() async {
        // `next()` before the subscription arrived: the demand is added up
        // and requested at once when it does.
        final class Late: Publisher, @unchecked Sendable {
            typealias Output = Int
            typealias Failure = Never
            let upstream = SignallingPublisher<Int, Never>()
            var pending: AnySubscriber<Int, Never>?
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
                pending = AnySubscriber(subscriber)
            }
            func attach() { if let pending { upstream.subscribe(pending) } }
        }
        let late = Late()
        let iterator = Handed(value: late.values.makeAsyncIterator())
        let (started, mark) = AsyncStream.makeStream(of: Void.self)
        let first = Task { mark.yield(); var it = iterator.value; return await it.next() }
        let second = Task { mark.yield(); var it = iterator.value; return await it.next() }
        var starts = started.makeAsyncIterator()
        _ = await starts.next()
        _ = await starts.next()
        // Let both calls park (they cannot be observed before the
        // subscription exists); yielding a few times is enough since the
        // tasks have nothing else to wait for.
        for _ in 0..<100 { await Task.yield() }
        late.attach()
        var events = late.upstream.events.makeAsyncIterator()
        let demand = await events.next()
        #expect(demand == .request(.max(2)) || demand == .request(.max(1)))
        if demand == .request(.max(1)) { #expect(await events.next() == .request(.max(1))) }
        late.upstream.send(7)
        late.upstream.send(8)
        let results = Set([await first.value, await second.value].compactMap { $0 })
        #expect(results == [7, 8])
    }

    @Test func aFailureIsThrownToTheOldestWaitingCallOnly() async throws {
        struct Boom: Error {}
        let upstream = SignallingPublisher<Int, any Error>()
        let iterator = Handed(value: upstream.values.makeAsyncIterator())
        var events = upstream.events.makeAsyncIterator()
        let first = Task { var it = iterator.value; return try await it.next() }
        #expect(await events.next() == .request(.max(1)))
        let second = Task { var it = iterator.value; return try await it.next() }
        #expect(await events.next() == .request(.max(1)))
        upstream.send(completion: .failure(Boom()))
        await #expect(throws: Boom.self) { try await first.value }
        #expect(try await second.value == nil)
        var it = iterator.value
        #expect(try await it.next() == nil) // thrown once, then the end
    }

    @Test func aValueBeforeTheSubscriptionEndsEveryWaitingCallWithNil() async {
        final class Late: Publisher, @unchecked Sendable {
            typealias Output = Int
            typealias Failure = Never
            let upstream = SignallingPublisher<Int, Never>()
            var pending: AnySubscriber<Int, Never>?
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
                pending = AnySubscriber(subscriber)
            }
        }
        let late = Late()
        let iterator = Handed(value: late.values.makeAsyncIterator())
        let returned = Counter()
        let first = Task { var it = iterator.value; defer { returned.increment() }; return await it.next() }
        let second = Task { var it = iterator.value; defer { returned.increment() }; return await it.next() }
        // The waiting calls cannot be observed before the subscription, so
        // the value is sent until both have returned: each send ends every
        // call waiting at that moment (before this fix, the second hung).
        while returned.count < 2 {
            _ = late.pending?.receive(42)
            await Task.yield()
        }
        #expect(await first.value == nil)
        #expect(await second.value == nil)
        // The iteration goes on: both calls' demand is requested on subscribe.
        late.upstream.subscribe(late.pending!)
        var events = late.upstream.events.makeAsyncIterator()
        #expect(await events.next() == .request(.max(2)))
    }

    @Test func anUnrequestedValueTraps() async {
        await #expect(processExitsWith: .failure) {
            let upstream = SignallingPublisher<Int, Never>()
            let iterator = upstream.values.makeAsyncIterator()
            withExtendedLifetime(iterator) { _ = upstream.send(1) }
        }
    }
}
