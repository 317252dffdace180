import Foundation
import Synchronization
import Testing
import UVCombineCore
import UVCombineFoundation
import UVCombineTesting

/// Runs the current thread's run loop until `done()` or `limit` seconds.
func runCurrentLoop(limit: TimeInterval, until done: () -> Bool) {
    let deadline = Date() + limit
    while !done(), Date() < deadline {
        _ = RunLoop.current.run(mode: .default, before: min(deadline, Date() + 0.01))
    }
}

@Suite("RunLoop as a Scheduler")
struct RunLoopSchedulerTests {
    typealias Time = RunLoop.SchedulerTimeType
    typealias Stride = RunLoop.SchedulerTimeType.Stride

    @Test func timeIsADateAndStridesAreSeconds() throws {
        let t0 = Time(Date(timeIntervalSinceReferenceDate: 100))
        let t1 = t0.advanced(by: .milliseconds(1500))
        #expect(t1.date == Date(timeIntervalSinceReferenceDate: 101.5))
        #expect(t0.distance(to: t1) == .seconds(1.5))
        #expect(t1.distance(to: t0) == -1.5)
        #expect(Stride.microseconds(250).timeInterval == 0.00025)
        #expect(Stride.nanoseconds(2_000_000_000) == 2)
        #expect(Stride(exactly: 3 as UInt8) == 3)
        #expect((Stride(2) * 3).magnitude == 6)
        let decoded = try JSONDecoder().decode(Time.self, from: JSONEncoder().encode(t1))
        #expect(decoded == t1)
        #expect(RunLoop.current.minimumTolerance == 0)
    }

    @Test func scheduleRunsOnTheRunLoopInOrder() {
        let loop = RunLoop.current
        var order: [Int] = []
        loop.schedule { order.append(1) }
        loop.schedule { order.append(2) }
        #expect(order == [])
        runCurrentLoop(limit: 2) { order.count == 2 }
        #expect(order == [1, 2])
    }

    @Test func scheduleFromAnotherThreadWakesASleepingRunLoop() {
        let loop = RunLoop.current
        let ranAt = Mutex<Date?>(nil)
        let sleeper = Timer(fire: .distantFuture, interval: 0, repeats: false) { _ in }
        loop.add(sleeper, forMode: .default)
        let box = UncheckedBoxForTests(loop)
        let start = Date()
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.05)
            box.value.schedule { ranAt.withLock { $0 = Date() } }
        }
        // One long pass: `run(mode:before:)` returns only at its limit
        // (timers and blocks do not end a pass), but the block runs as
        // soon as the pass is woken. Without the wake-up it would run only
        // when the pass ends.
        _ = loop.run(mode: .default, before: start + 1.5)
        let ran = ranAt.withLock { $0 }
        #expect(ran != nil)
        #expect((ran ?? .distantFuture).timeIntervalSince(start) < 1)
        sleeper.invalidate()
    }

    @Test func scheduleAfterWaitsForTheDate() {
        let loop = RunLoop.current
        let start = Date()
        var fired: Date?
        loop.schedule(after: loop.now.advanced(by: .milliseconds(30))) { fired = Date() }
        runCurrentLoop(limit: 2) { fired != nil }
        let elapsed = try? #require(fired).timeIntervalSince(start)
        #expect((elapsed ?? 0) >= 0.029)
    }

    @Test func repeatingScheduleStopsWhenCancelled() {
        let loop = RunLoop.current
        var ticks = 0
        let c = loop.schedule(after: loop.now.advanced(by: .milliseconds(10)), interval: .milliseconds(10)) {
            ticks += 1
        }
        runCurrentLoop(limit: 2) { ticks >= 3 }
        #expect(ticks >= 3)
        c.cancel()
        let stopped = ticks
        runCurrentLoop(limit: 0.05) { false }
        #expect(ticks == stopped)
    }

    @Test func receiveOnHopsToTheRunLoop() {
        let loop = RunLoop.current
        let subject = PassthroughSubject<Int, Never>()
        var seen: [Int] = []
        let c = subject.receive(on: loop).sink { seen.append($0) }
        subject.send(1)
        subject.send(2)
        #expect(seen == [])
        runCurrentLoop(limit: 2) { seen.count == 2 }
        #expect(seen == [1, 2])
        c.cancel()
    }
}

/// Hands a non-Sendable reference to another thread in a test.
struct UncheckedBoxForTests<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

@Suite("OperationQueue as a Scheduler")
struct OperationQueueSchedulerTests {
    @Test func scheduleRunsAsAnOperationOnTheQueue() {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let order = Mutex<[Int]>([])
        queue.schedule { order.withLock { $0.append(1) } }
        queue.schedule { order.withLock { $0.append(2) } }
        queue.waitUntilAllOperationsAreFinished()
        #expect(order.withLock { $0 } == [1, 2])
    }

    @Test func scheduleAfterNeverRunsEarly() {
        let queue = OperationQueue()
        let start = Date()
        let fired = Mutex<Date?>(nil)
        queue.schedule(after: queue.now.advanced(by: .milliseconds(30))) { fired.withLock { $0 = Date() } }
        let deadline = Date() + 2
        while fired.withLock({ $0 }) == nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        let at = fired.withLock { $0 }
        #expect(at != nil)
        #expect((at ?? start).timeIntervalSince(start) >= 0.029)
    }

    @Test func repeatingScheduleStopsWhenCancelled() {
        let queue = OperationQueue()
        let ticks = Atomic<Int>(0)
        let c = queue.schedule(after: queue.now, interval: .milliseconds(10)) {
            ticks.add(1, ordering: .relaxed)
        }
        let deadline = Date() + 2
        while ticks.load(ordering: .relaxed) < 3, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        #expect(ticks.load(ordering: .relaxed) >= 3)
        c.cancel()
        queue.waitUntilAllOperationsAreFinished()
        let stopped = ticks.load(ordering: .relaxed)
        Thread.sleep(forTimeInterval: 0.05)
        #expect(ticks.load(ordering: .relaxed) == stopped)
    }
}
