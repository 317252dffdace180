import Foundation
import Synchronization
import Testing
import UVCombineCore
import UVCombineLoop
import UVCombineLoopFoundation
import UVCombineTesting

@Suite("UVLoopThread and UVLoopGroup")
struct UVLoopThreadTests {
    @Test func actionsRunOnTheBackgroundThreadInOrder() throws {
        let background = try UVLoopThread()
        let caller = threadID()
        let log = Shared<[Int]>([])
        let wrongThread = Atomic<Int>(0)
        for i in 0..<1_000 {
            background.loop.schedule {
                if threadID() == caller || !background.loop.isInLoop { wrongThread.add(1, ordering: .relaxed) }
                log.append(i)
            }
        }
        spinUntil { log.value.count == 1_000 }
        #expect(log.value == Array(0..<1_000))
        #expect(wrongThread.load(ordering: .relaxed) == 0)
        #expect(!background.loop.isInLoop)
        try background.shutdown()
        try background.shutdown() // idempotent
    }

    @Test func aTimerPublisherOnABackgroundLoop() throws {
        weak var released: UVLoop?
        weak var publisher: UVTimer.TimerPublisher?
        do {
            let background = try UVLoopThread()
            released = background.loop
            let timer = UVTimer.publish(every: .milliseconds(2), on: background.loop)
            publisher = timer
            let tracker = TrackingSubscriber<Date, Never>()
            timer.subscribe(tracker)
            let connection = timer.connect()
            spinUntil { tracker.values.count >= 3 }
            connection.cancel() // from this thread: strict, nothing arrives after it returned
            let count = tracker.values.count
            let marker = Atomic<Bool>(false)
            background.loop.schedule(after: background.loop.now.advanced(by: .milliseconds(10))) {
                marker.store(true, ordering: .releasing)
            }
            spinUntil { marker.load(ordering: .acquiring) }
            #expect(tracker.values.count == count)
            try background.shutdown()
        }
        #expect(publisher == nil)
        #expect(released == nil)
    }

    @Test func shutdownClosesActiveTimersAndDiscardsQueuedWork() throws {
        weak var captured: Token?
        weak var released: UVLoop?
        do {
            let background = try UVLoopThread()
            released = background.loop
            let token = Token()
            captured = token
            let started = Atomic<Bool>(false)
            _ = background.loop.schedule(after: background.loop.now, interval: .milliseconds(1)) {
                _ = token
                started.store(true, ordering: .releasing)
            }
            background.loop.schedule(after: background.loop.now.advanced(by: .seconds(3600))) { _ = token }
            spinUntil { started.load(ordering: .acquiring) }
            try background.shutdown()
            background.loop.schedule { _ = token } // after shutdown: discarded
        }
        #expect(captured == nil)
        #expect(released == nil)
    }

    @Test func concurrentShutdownsJoinOnce() throws {
        let background = try UVLoopThread()
        let other = TestThread { try? background.shutdown() }
        try background.shutdown()
        other.join()
    }

    @Test func aGroupHandsOutItsLoopsRoundRobinOnDistinctThreads() throws {
        weak var firstLoop: UVLoop?
        do {
            let group = try UVLoopGroup(numberOfThreads: 3)
            let loops = group.loops
            firstLoop = loops[0]
            #expect(loops.count == 3)
            let handedOut = (0..<7).map { _ in group.next() }
            #expect(handedOut.map { ObjectIdentifier($0) } == [0, 1, 2, 0, 1, 2, 0].map { ObjectIdentifier(loops[$0]) })
            let threads = Shared<[Int: UInt]>([:])
            for (index, loop) in loops.enumerated() {
                loop.schedule { threads.withLock { $0[index] = threadID() } }
            }
            spinUntil { threads.value.count == 3 }
            #expect(Set(threads.value.values).count == 3)
            #expect(!threads.value.values.contains(threadID()))
            // Work on every loop at shutdown: all of it is closed.
            for loop in loops {
                _ = UVTimer.publish(every: .milliseconds(1), on: loop).connect()
            }
            try group.shutdown()
            try group.shutdown()
        }
        #expect(firstLoop == nil)
    }
}
