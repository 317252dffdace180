import Foundation
import Synchronization
import Testing
import UVCombineCore
import UVCombineLoop
import UVCombineLoopFoundation
import UVCombineTesting

/// The loop under the core's scheduler operators.
@Suite("UVLoop with receive(on:), autoconnect and the time operators")
struct SchedulerIntegrationTests {
    @Test func receiveOnTheLoopFromABackgroundThreadDeliversInOrderOnTheLoopThread() {
        withLoop { loop in
            let token = loop.keepAlive()
            let subject = PassthroughSubject<Int, Never>()
            let count = 10_000
            let loopThread = threadID()
            let received = Unchecked<[Int]>([]) // loop thread only
            let offLoop = Atomic<Int>(0)
            let finished = Unchecked(false)
            let producerThreads = Shared<Set<UInt>>([])
            let cancellable = subject
                .receive(on: loop)
                .sink(receiveCompletion: { _ in
                    finished.value = true
                    token.cancel()
                }, receiveValue: { value in
                    if threadID() != loopThread || !loop.isInLoop { offLoop.add(1, ordering: .relaxed) }
                    received.value.append(value)
                })
            let producer = TestThread {
                producerThreads.withLock { _ = $0.insert(threadID()) }
                for i in 0..<count { subject.send(i) }
                subject.send(completion: .finished)
            }
            loop.run() // until the completion arrived on the loop
            producer.join()
            #expect(received.value == Array(0..<count))
            #expect(finished.value)
            #expect(offLoop.load(ordering: .relaxed) == 0)
            #expect(!producerThreads.value.contains(loopThread))
            cancellable.cancel()
        }
    }

    @Test func autoconnectStartsOnTheFirstSubscriberAndStopsAfterTheLast() {
        withLoop { loop in
            let interval = UVLoop.SchedulerTimeType.Stride.milliseconds(5)
            let auto = UVTimer.publish(every: interval, on: loop).autoconnect()
            let box = Unchecked<AnyCancellable?>(nil)
            let arrivals = Shared<[UVLoop.SchedulerTimeType]>([])
            let subscribedAt = loop.now
            box.value = auto.sink { _ in
                arrivals.append(loop.now)
                if arrivals.value.count == 3 { box.value?.cancel() } // the last subscriber leaves
            }
            loop.run() // returns: the timer stopped with the last subscriber
            #expect(arrivals.value.count == 3)
            #expect(arrivals.value[0] >= subscribedAt.advanced(by: interval))

            // A later subscriber connects again.
            let again = Shared(0)
            let resubscribedAt = loop.now
            let first = Shared<UVLoop.SchedulerTimeType?>(nil)
            box.value = auto.sink { _ in
                if again.withLock({ $0 += 1; return $0 }) == 1 { first.withLock { $0 = loop.now } }
                if again.value == 2 { box.value?.cancel() }
            }
            loop.run()
            #expect(again.value == 2)
            #expect(first.value! >= resubscribedAt.advanced(by: interval))
            box.value = nil
        }
    }

    @Test func theSchedulerGenericTimerRunsOnTheLoopAndNeverEarly() {
        withLoop { loop in
            let interval = UVLoop.SchedulerTimeType.Stride.milliseconds(3)
            let timer = UVSchedulerTimer.publish(every: interval, on: loop)
            let instants = Shared<[UVLoop.SchedulerTimeType]>([])
            let connection = Unchecked<(any Cancellable)?>(nil)
            let sink = timer.sink { instant in
                instants.append(instant)
                if instants.value.count == 5 { connection.value?.cancel() }
            }
            let connectedAt = loop.now
            connection.value = timer.connect()
            loop.run()
            let values = instants.value
            #expect(values.count == 5)
            for (k, instant) in values.enumerated() {
                #expect(instant >= connectedAt.advanced(by: interval * (k + 1)))
            }
            sink.cancel()
        }
    }

    @Test func delayAndDebounceOnTheLoop() {
        withLoop { loop in
            let start = loop.now
            let delayed = Shared<UVLoop.SchedulerTimeType?>(nil)
            let c1 = Just(1).delay(for: .milliseconds(20), scheduler: loop).sink { _ in
                delayed.withLock { $0 = loop.now }
            }
            let subject = PassthroughSubject<Int, Never>()
            let debounced = Shared<[Int]>([])
            let c2 = subject.debounce(for: .milliseconds(10), scheduler: loop).sink { debounced.append($0) }
            loop.schedule { subject.send(1); subject.send(2) }
            loop.schedule(after: loop.now.advanced(by: .milliseconds(2))) { subject.send(3) }
            loop.run()
            #expect(delayed.value! >= start.advanced(by: .milliseconds(20)))
            #expect(debounced.value == [3])
            c1.cancel()
            c2.cancel()
        }
    }
}
