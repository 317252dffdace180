import Testing
import UVCombineCore

/// A publisher written the way many hand-made publishers are: it keeps
/// `AnySubscriber(subscriber)` in a property and subscribes it to its
/// source later. Swift 6.3.1's optimiser once promoted that box to the
/// stack of the operator that subscribed (release builds only), so the
/// first event read a dead frame; these tests run the pattern through
/// operators and through `values`, in whatever configuration the suite
/// is built (CI builds release).
private final class DeferredPublisher: Publisher, @unchecked Sendable {
    typealias Output = Int
    typealias Failure = Never

    let source = CurrentValueSubject<Int, Never>(1)
    var pending: AnySubscriber<Int, Never>?

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        pending = AnySubscriber(subscriber)
    }

    /// Subscribes the stored subscriber to the source.
    func attach() {
        if let pending { source.subscribe(pending) }
    }
}

/// Subscribes through operators in a function of its own, so the operators'
/// frames are gone before anything is delivered.
@inline(never)
private func subscribeThroughOperators(_ publisher: DeferredPublisher, into received: ReceivedValues) -> AnyCancellable {
    publisher.map { $0 * 10 }.filter { $0 > 0 }.sink { received.values.append($0) }
}

/// Where the sink writes (one thread).
private final class ReceivedValues: @unchecked Sendable {
    var values: [Int] = []
}

@Suite("AnySubscriber kept by a publisher")
struct AnySubscriberStorageTests {
    @Test func aStoredAnySubscriberOutlivesTheOperatorsThatMadeIt() {
        let publisher = DeferredPublisher()
        let received = ReceivedValues()
        let cancellable = subscribeThroughOperators(publisher, into: received)
        publisher.attach()
        #expect(publisher.pending?.description == "Map")
        publisher.source.send(2)
        #expect(received.values == [10, 20])
        cancellable.cancel()
    }

    @Test func aStoredAnySubscriberOutlivesMakeAsyncIterator() async {
        let publisher = DeferredPublisher()
        var iterator = makeIterator(publisher)
        publisher.attach()
        // The current value answers the first request.
        #expect(await iterator.next() == 1)
        publisher.source.send(completion: .finished)
        #expect(await iterator.next() == nil)
    }
}

/// Makes the iterator in a frame of its own, gone before the first value.
@inline(never)
private func makeIterator(_ publisher: DeferredPublisher) -> AsyncPublisher<DeferredPublisher>.Iterator {
    publisher.values.makeAsyncIterator()
}
