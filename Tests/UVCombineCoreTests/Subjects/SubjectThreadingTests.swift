import Synchronization
import Testing
import UVCombineCore
import UVCombineTesting

#if canImport(Glibc)
import Glibc
#endif

/// What one subscriber saw, filled from whatever thread delivers.
private final class Observed: @unchecked Sendable {
    // @unchecked Sendable: `values` and `threads` are only written inside
    // deliveries, which the subject serialises (and the test checks that
    // with `inside`); read after every thread has been joined.
    var values: [Int] = []
    var threads: [UInt] = []
    /// Deliveries in progress right now; more than 1 breaks Combine's
    /// one-call-at-a-time rule.
    let inside = Atomic<Int>(0)
    let overlaps = Atomic<Int>(0)
    /// Values received after the test's `cancel()` returned.
    let afterCancel = Atomic<Int>(0)
    let cancelReturned = Atomic<Bool>(false)
    let received = Atomic<Int>(0)

    func record(_ value: Int) {
        if inside.wrappingAdd(1, ordering: .acquiring).newValue != 1 { overlaps.add(1, ordering: .relaxed) }
        if cancelReturned.load(ordering: .acquiring) { afterCancel.add(1, ordering: .relaxed) }
        values.append(value)
        threads.append(UInt(pthread_self()))
        received.add(1, ordering: .releasing)
        inside.wrappingSubtract(1, ordering: .releasing)
    }
}

/// A subscriber that asks for `initial`, then for whatever `request`
/// asks from any thread.
private final class Requesting: Subscriber, @unchecked Sendable {
    // @unchecked Sendable: `subscription` is set once before any other
    // thread reads it.
    typealias Input = Int
    typealias Failure = Never
    let observed = Observed()
    let initial: Subscribers.Demand
    var subscription: (any Subscription)?

    init(initial: Subscribers.Demand) { self.initial = initial }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        subscription.request(initial)
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        observed.record(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {}
}

/// A subject's one-subscriber send (issue 32: the fast path taken when the
/// only subscriber has `.unlimited` demand) against `cancel`, `subscribe`
/// and `request` on other threads, on real threads, checking the thread
/// each value arrives on and counting every call.
@Suite("Subject one-subscriber path under threads")
struct SubjectThreadingTests {
    @Test("no value reaches a sink after cancel() returned on another thread, 200 races")
    func cancelRacingSends() {
        for _ in 0..<200 {
            let subject = PassthroughSubject<Int, Never>()
            let observed = Observed()
            let cancellable = subject.sink { observed.record($0) }
            let senderThread = Atomic<UInt>(0)
            let stop = Atomic<Bool>(false)
            let sender = TestThread {
                senderThread.store(UInt(pthread_self()), ordering: .relaxed)
                var value = 0
                while !stop.load(ordering: .relaxed) {
                    subject.send(value)
                    value += 1
                }
                // More sends once cancel() has returned: none may arrive.
                for _ in 0..<100 { subject.send(-1) }
            }
            while observed.received.load(ordering: .acquiring) < 10 { sched_yield() }
            cancellable.cancel()
            observed.cancelReturned.store(true, ordering: .releasing)
            stop.store(true, ordering: .relaxed)
            sender.join()
            #expect(observed.afterCancel.load(ordering: .relaxed) == 0)
            #expect(observed.overlaps.load(ordering: .relaxed) == 0)
            #expect(!observed.values.contains(-1))
            #expect(observed.values == Array(0..<observed.values.count))
            #expect(observed.threads.allSatisfy { $0 == senderThread.load(ordering: .relaxed) })
        }
    }

    @Test("4 threads sending to one sink: 40,000 calls, one at a time, each on its sender's thread")
    func concurrentSendersAreSerialised() {
        let subject = PassthroughSubject<Int, Never>()
        let observed = Observed()
        let cancellable = subject.sink { observed.record($0) }
        let senders = Mutex<[Int: UInt]>([:])
        TestThread.run(4) { index in
            senders.withLock { $0[index] = UInt(pthread_self()) }
            for i in 0..<10_000 { subject.send(index * 1_000_000 + i) }
        }
        cancellable.cancel()
        let threadOf = senders.withLock { $0 }
        #expect(observed.values.count == 40_000)
        #expect(observed.overlaps.load(ordering: .relaxed) == 0)
        var wrongThread = 0
        var next = [0, 0, 0, 0]
        var outOfOrder = 0
        for (value, thread) in zip(observed.values, observed.threads) {
            let index = value / 1_000_000
            if threadOf[index] != thread { wrongThread += 1 }
            if value % 1_000_000 != next[index] { outOfOrder += 1 }
            next[index] = value % 1_000_000 + 1
        }
        #expect(wrongThread == 0)
        #expect(outOfOrder == 0)
    }

    /// A second subscriber arriving moves the subject off its
    /// one-subscriber path mid-stream; the first is cancelled from a third
    /// thread. Both see increasing values, the first none after its
    /// cancel returned, and nothing overlaps.
    @Test("a subscriber joining and the first leaving while values flow")
    func subscribeAndCancelRacingSends() {
        for _ in 0..<50 {
            let subject = PassthroughSubject<Int, Never>()
            let first = Observed()
            let second = Observed()
            let cancellable = subject.sink { first.record($0) }
            let stop = Atomic<Bool>(false)
            let sender = TestThread {
                var value = 0
                while !stop.load(ordering: .relaxed) {
                    subject.send(value)
                    value += 1
                }
            }
            while first.received.load(ordering: .acquiring) < 10 { sched_yield() }
            let joined = Mutex<AnyCancellable?>(nil)
            let joiner = TestThread {
                let c = subject.sink { second.record($0) }
                joined.withLock { $0 = c }
            }
            joiner.join()
            while second.received.load(ordering: .acquiring) < 10 { sched_yield() }
            let canceller = TestThread {
                cancellable.cancel()
                first.cancelReturned.store(true, ordering: .releasing)
            }
            canceller.join()
            let afterCancel = second.received.load(ordering: .acquiring)
            while second.received.load(ordering: .acquiring) < afterCancel + 10 { sched_yield() }
            stop.store(true, ordering: .relaxed)
            sender.join()
            joined.withLock { $0?.cancel() }
            #expect(first.afterCancel.load(ordering: .relaxed) == 0)
            #expect(first.overlaps.load(ordering: .relaxed) == 0)
            #expect(second.overlaps.load(ordering: .relaxed) == 0)
            #expect(zip(first.values, first.values.dropFirst()).allSatisfy { $0 + 1 == $1 })
            #expect(zip(second.values, second.values.dropFirst()).allSatisfy { $0 + 1 == $1 })
            #expect(second.values.first.map { $0 <= first.values.last! + 1 } == true)
        }
    }

    /// A subscriber on `.max(1)` gets one value while another thread is
    /// sending, however many are sent, until another thread requests
    /// `.unlimited`; from then on (the one-subscriber path) it gets every
    /// value, in order.
    @Test("demand is honoured until a request(.unlimited) from another thread opens the fast path")
    func requestRacingSends() {
        for _ in 0..<50 {
            let subject = PassthroughSubject<Int, Never>()
            let subscriber = Requesting(initial: .max(1))
            subject.subscribe(subscriber)
            let stop = Atomic<Bool>(false)
            let sent = Atomic<Int>(0)
            let sender = TestThread {
                var value = 0
                while !stop.load(ordering: .relaxed) {
                    subject.send(value)
                    value += 1
                    sent.store(value, ordering: .relaxed)
                }
            }
            while sent.load(ordering: .relaxed) < 1_000 { sched_yield() }
            let beforeRequest = subscriber.observed.received.load(ordering: .acquiring)
            let requester = TestThread { subscriber.subscription!.request(.unlimited) }
            requester.join()
            let afterRequest = subscriber.observed.received.load(ordering: .acquiring)
            while subscriber.observed.received.load(ordering: .acquiring) < afterRequest + 1_000 { sched_yield() }
            stop.store(true, ordering: .relaxed)
            sender.join()
            subscriber.subscription!.cancel()
            let values = subscriber.observed.values
            #expect(beforeRequest == 1)
            #expect(values.first == 0)
            #expect(zip(values.dropFirst(), values.dropFirst(2)).allSatisfy { $0 + 1 == $1 })
            #expect(subscriber.observed.overlaps.load(ordering: .relaxed) == 0)
        }
    }

    @Test("a sink cancelling itself inside its one-subscriber delivery gets nothing more")
    func cancelInsideDelivery() {
        final class Holder: @unchecked Sendable { var cancellable: AnyCancellable? }
        let subject = PassthroughSubject<Int, Never>()
        let holder = Holder()
        var values: [Int] = []
        holder.cancellable = subject.sink { value in
            values.append(value)
            if value == 2 { holder.cancellable?.cancel() }
        }
        for i in 0..<5 { subject.send(i) }
        #expect(values == [0, 1, 2])
        subject.send(9)
        holder.cancellable = nil
        #expect(values == [0, 1, 2])
    }

    @Test("a send from inside the one-subscriber delivery is delivered at once, nested, in order")
    func nestedSendInsideDelivery() {
        let subject = PassthroughSubject<Int, Never>()
        var values: [Int] = []
        let cancellable = subject.sink { value in
            values.append(value)
            if value < 3 { subject.send(value + 10) }
        }
        subject.send(0)
        subject.send(1)
        #expect(values == [0, 10, 1, 11])
        cancellable.cancel()
    }

    @Test("CurrentValueSubject keeps the latest value on the one-subscriber path")
    func currentValueOnTheFastPath() {
        let subject = CurrentValueSubject<Int, Never>(0)
        var first: [Int] = []
        let c1 = subject.sink { first.append($0) }
        for i in 1...3 { subject.send(i) }
        #expect(subject.value == 3)
        var second: [Int] = []
        let c2 = subject.sink { second.append($0) }
        subject.send(4)
        #expect(first == [0, 1, 2, 3, 4])
        #expect(second == [3, 4])
        c1.cancel()
        c2.cancel()
    }
}
