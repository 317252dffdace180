import Synchronization
import Testing
import UVCombineCore
import UVCombineTesting

@Suite("Subscribers.Sink and Assign")
struct SinkTests {
    @Test func sinkRequestsUnlimited() {
        let upstream = TestPublisher<Int, Never>()
        let c = upstream.sink { _ in }
        #expect(upstream.subscription?.requested == [.unlimited])
        c.cancel()
    }

    @Test func sinkReceivesValuesAndCompletion() {
        let values = Mutex<[Int]>([])
        let completions = Mutex(0)
        let subject = PassthroughSubject<Int, Never>()
        let c = subject.sink(receiveCompletion: { _ in completions.withLock { $0 += 1 } },
                             receiveValue: { v in values.withLock { $0.append(v) } })
        subject.send(1)
        subject.send(2)
        subject.send(completion: .finished)
        subject.send(3)
        #expect(values.withLock { $0 } == [1, 2])
        #expect(completions.withLock { $0 } == 1)
        _ = c
    }

    @Test func cancelReachesUpstreamAndStopsValues() {
        let upstream = TestPublisher<Int, Never>()
        let values = Mutex<[Int]>([])
        let c = upstream.sink { v in values.withLock { $0.append(v) } }
        upstream.send(1)
        c.cancel()
        upstream.send(2)
        #expect(upstream.subscription?.isCancelled == true)
        #expect(values.withLock { $0 } == [1])
        c.cancel()
        #expect(upstream.subscription?.cancelCount == 1)
    }

    @Test func deinitOfAnyCancellableCancels() {
        let upstream = TestPublisher<Int, Never>()
        do { _ = upstream.sink { _ in } }
        #expect(upstream.subscription?.isCancelled == true)
    }

    @Test func secondSubscriptionIsCancelled() {
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        let a = TestPublisher<Int, Never>()
        let b = TestPublisher<Int, Never>()
        a.subscribe(sink)
        b.subscribe(sink)
        #expect(b.subscription?.isCancelled == true)
        #expect(a.subscription?.isCancelled == false)
        sink.cancel()
    }

    @Test func cancelReleasesClosuresBreakingCycles() {
        final class Owner {
            var bag = Set<AnyCancellable>()
            let subject = PassthroughSubject<Int, Never>()
            var seen = 0
            func start() { subject.sink { self.seen += $0 }.store(in: &bag) }
        }
        weak var weakOwner: Owner?
        do {
            let owner = Owner()
            weakOwner = owner
            owner.start()
            owner.subject.send(2)
            #expect(owner.seen == 2)
            owner.bag.first?.cancel()
        }
        #expect(weakOwner == nil)
    }

    @Test func completionReleasesClosures() {
        final class Token {}
        weak var weakToken: Token?
        let subject = PassthroughSubject<Int, Never>()
        var c: AnyCancellable?
        do {
            let token = Token()
            weakToken = token
            c = subject.sink { _ in _ = token }
        }
        #expect(weakToken != nil)
        subject.send(completion: .finished)
        #expect(weakToken == nil)
        _ = c
    }

    @Test func cancelFromInsideReceiveValue() {
        let subject = PassthroughSubject<Int, Never>()
        let values = Mutex<[Int]>([])
        let holder = Mutex<AnyCancellable?>(nil)
        let c = subject.sink { v in
            values.withLock { $0.append(v) }
            holder.withLock { $0 }?.cancel()
        }
        holder.withLock { $0 = c }
        subject.send(1)
        subject.send(2)
        #expect(values.withLock { $0 } == [1])
    }

    @Test func descriptionIsSink() {
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        #expect(sink.description == "Sink")
    }

    @Test func assignSetsPropertyAndReleasesObject() {
        final class Model { var count = 0 }
        weak var weakModel: Model?
        let subject = PassthroughSubject<Int, Never>()
        var c: AnyCancellable?
        do {
            let model = Model()
            weakModel = model
            c = subject.assign(to: \.count, on: model)
            subject.send(3)
            #expect(model.count == 3)
        }
        #expect(weakModel != nil)
        c?.cancel()
        #expect(weakModel == nil)
    }

    @Test func assignReleasesOnCompletion() {
        final class Model { var text = "" }
        weak var weakModel: Model?
        var c: AnyCancellable?
        do {
            let model = Model()
            weakModel = model
            c = ["a", "b"].publisher.assign(to: \.text, on: model)
            #expect(model.text == "b")
        }
        #expect(weakModel == nil)
        _ = c
    }
}
