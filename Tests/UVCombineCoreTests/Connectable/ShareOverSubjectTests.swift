import Testing
@testable import UVCombineCore
import UVCombineTesting

/// `subject.share()`: the connection is listed by the subject itself, as
/// its own conduit (EngineSubject). The same rules as over any upstream,
/// checked here against both subjects, plus what the subject's list holds.
@Suite("Share over a subject")
struct ShareOverSubjectTests {
    @Test func valuesReachEverySubscriberAndTheSubjectListsOneConnection() {
        let subject = PassthroughSubject<Int, Never>()
        let share = subject.share()
        let first = TrackingSubscriber<Int, Never>()
        let second = TrackingSubscriber<Int, Never>()
        share.subscribe(first)
        share.subscribe(second)
        #expect(subject.engine.subscriberCount == 1)
        subject.send(1)
        subject.send(2)
        #expect(first.history == ["subscription(Multicast)", "value(1)", "value(2)"])
        #expect(second.values == [1, 2])
        first.cancel()
        #expect(subject.engine.subscriberCount == 1)
        second.cancel()
        #expect(subject.engine.subscriberCount == 0)
        subject.send(3)
        #expect(second.values == [1, 2])
    }

    @Test func noDemandFromAnySubscriberMeansNoDemandOnTheSubject() {
        let subject = PassthroughSubject<Int, Never>()
        let share = subject.share()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        share.subscribe(tracker)
        #expect(subject.engine.subscriberCount == 1)
        subject.send(1) // the connection has no demand yet: the subject drops it
        tracker.request(.max(2))
        subject.send(2)
        subject.send(3)
        subject.send(4)
        #expect(tracker.values == [2, 3])
        tracker.cancel()
    }

    @Test func aCurrentValueSubjectsValueReachesTheFirstDemand() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let share = subject.share()
        let waiting = TrackingSubscriber<Int, Never>(initialDemand: .none)
        share.subscribe(waiting)
        #expect(waiting.values == [])
        waiting.request(.max(1))
        #expect(waiting.values == [0])
        subject.send(1) // no demand left
        waiting.request(.max(1))
        subject.send(2)
        #expect(waiting.values == [0, 2])
        let late = TrackingSubscriber<Int, Never>()
        share.subscribe(late)
        subject.value = 3
        #expect(late.values == [3]) // the share keeps no value: only later ones
        waiting.cancel()
        late.cancel()
        #expect(subject.engine.subscriberCount == 0)
    }

    @Test func aCompletedSubjectGivesEverySubscriberItsCompletion() {
        let subject = PassthroughSubject<Int, TestError>()
        subject.send(completion: .failure(.boom))
        let share = subject.share()
        let first = TrackingSubscriber<Int, TestError>()
        share.subscribe(first)
        #expect(first.history == ["subscription(Multicast)", "failure(boom)"])
        let second = TrackingSubscriber<Int, TestError>()
        share.subscribe(second)
        #expect(second.history == ["subscription(Multicast)", "failure(boom)"])
        #expect(subject.engine.subscriberCount == 0)
    }

    @Test func theSubjectCompletingFinishesTheShareForGood() {
        let subject = CurrentValueSubject<Int, TestError>(5)
        let share = subject.share()
        let first = TrackingSubscriber<Int, TestError>()
        share.subscribe(first)
        subject.send(completion: .finished)
        #expect(first.history == ["subscription(Multicast)", "value(5)", "finished"])
        #expect(subject.engine.subscriberCount == 0)
        let late = TrackingSubscriber<Int, TestError>()
        share.subscribe(late)
        #expect(late.history == ["subscription(Multicast)", "finished"])
        #expect(subject.engine.subscriberCount == 0)
    }

    @Test func theLastCancelLeavesTheSubjectAndTheNextSubscriberJoinsAgain() {
        let subject = PassthroughSubject<Int, Never>()
        let share = subject.share()
        let first = TrackingSubscriber<Int, Never>()
        share.subscribe(first)
        subject.send(1)
        first.cancel()
        #expect(subject.engine.subscriberCount == 0)
        subject.send(2)
        let second = TrackingSubscriber<Int, Never>()
        share.subscribe(second)
        #expect(subject.engine.subscriberCount == 1)
        subject.send(3)
        #expect(first.values == [1])
        #expect(second.values == [3])
        second.cancel()
        #expect(subject.engine.subscriberCount == 0)
    }

    @Test func aSubscriberCancellingInsideADeliveryLeavesTheSubjectAfterIt() {
        let subject = PassthroughSubject<Int, Never>()
        let share = subject.share()
        final class Holder { var cancellable: AnyCancellable? }
        let holder = Holder()
        var received: [Int] = []
        holder.cancellable = share.sink { value in
            received.append(value)
            holder.cancellable?.cancel()
        }
        subject.send(1)
        subject.send(2)
        #expect(received == [1])
        #expect(subject.engine.subscriberCount == 0)
    }

    @Test func aSubscriberSendingOnTheSubjectInsideADeliveryGetsBothInOrder() {
        let subject = PassthroughSubject<Int, Never>()
        let share = subject.share()
        var received: [Int] = []
        let c = share.sink { value in
            received.append(value)
            if value == 1 { subject.send(10) }
        }
        subject.send(1)
        subject.send(2)
        #expect(received == [1, 10, 2])
        c.cancel()
    }

    @Test func nothingStaysAliveAfterCancelWhileTheSubjectLives() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakShare: Publishers.Share<PassthroughSubject<Int, Never>>?
        weak var weakSink: AnyObject?
        do {
            let share = subject.share()
            let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
            share.subscribe(sink)
            subject.send(1)
            weakShare = share
            weakSink = sink
            sink.cancel()
        }
        #expect(weakShare == nil)
        #expect(weakSink == nil)
        #expect(subject.engine.subscriberCount == 0)
    }

    @Test func nothingStaysAliveAfterTheSubjectCompletes() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakShare: Publishers.Share<PassthroughSubject<Int, Never>>?
        var storage = Set<AnyCancellable>()
        do {
            let share = subject.share()
            share.sink { _ in }.store(in: &storage)
            weakShare = share
        }
        #expect(weakShare != nil)
        subject.send(completion: .finished)
        storage.removeAll()
        #expect(weakShare == nil)
    }

    @Test func concurrentSubscribeCancelAndSendLeaveTheSubjectEmpty() async {
        let subject = PassthroughSubject<Int, Never>()
        let share = UncheckedSendableBox(subject.share())
        let keeper = TrackingSubscriber<Int, Never>()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for i in 0..<20_000 { subject.send(i) }
            }
            for _ in 0..<3 {
                group.addTask {
                    for _ in 0..<1_000 {
                        let c = share.value.sink { _ in }
                        c.cancel()
                    }
                }
            }
            group.addTask { share.value.subscribe(keeper) }
        }
        // The keeper holds the one connection left, which the subject lists.
        #expect(subject.engine.subscriberCount == 1)
        let before = keeper.values.count
        subject.send(-1)
        #expect(keeper.values.count == before + 1)
        keeper.cancel()
        #expect(subject.engine.subscriberCount == 0)
    }
}
