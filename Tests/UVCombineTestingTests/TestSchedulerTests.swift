import Dispatch
import Synchronization
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineTesting

/// Records strings from any thread.
final class Log: @unchecked Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ s: String) { entries.withLock { $0.append(s) } }
    var all: [String] { entries.withLock { $0 } }
}

@Suite("TestScheduler")
struct TestSchedulerTests {
    typealias Time = DispatchQueue.SchedulerTimeType

    private func seconds(_ scheduler: TestSchedulerOf<DispatchQueue>, _ start: Time) -> Int {
        start.distance(to: scheduler.now).magnitude / 1_000_000_000
    }

    @Test func actionsDueAtTheSameInstantRunInTheOrderScheduled() {
        let scheduler = DispatchQueue.test
        let log = Log()
        let start = scheduler.now
        for i in 0..<50 {
            // Alternate between two deadlines so equal keys interleave in the heap.
            let at = start.advanced(by: .seconds(i % 2 == 0 ? 2 : 1))
            scheduler.schedule(after: at) { log.append("\(i % 2 == 0 ? 2 : 1):\(i)") }
        }
        scheduler.advance(by: .seconds(2))
        let ones = (0..<50).filter { $0 % 2 == 1 }.map { "1:\($0)" }
        let twos = (0..<50).filter { $0 % 2 == 0 }.map { "2:\($0)" }
        #expect(log.all == ones + twos)
    }

    @Test func manyDeadlinesInScrambledOrderRunSorted() {
        let scheduler = DispatchQueue.test
        let start = scheduler.now
        let order = Mutex<[(Int, Int)]>([])
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for i in 0..<2_000 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let deadline = Int(seed >> 54) // 0..<1024 ms, with many ties
            scheduler.schedule(after: start.advanced(by: .milliseconds(deadline))) {
                order.withLock { $0.append((deadline, i)) }
            }
        }
        #expect(scheduler.pendingActionCount == 2_000)
        scheduler.run()
        let ran = order.withLock { $0 }
        #expect(ran.count == 2_000)
        let sorted = ran.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        #expect(ran.map(\.0) == sorted.map(\.0))
        #expect(ran.map(\.1) == sorted.map(\.1)) // stable: ties keep scheduling order
        #expect(scheduler.pendingActionCount == 0)
    }

    @Test func advanceRunsOnlyWhatIsDueAndSetsNowToEachDeadline() {
        let scheduler = DispatchQueue.test
        let start = scheduler.now
        let seen = Mutex<[Int]>([])
        for s in [3, 1, 2] {
            scheduler.schedule(after: start.advanced(by: .seconds(s))) {
                seen.withLock { $0.append(start.distance(to: scheduler.now).magnitude / 1_000_000_000) }
            }
        }
        scheduler.advance(by: .milliseconds(1_500))
        #expect(seen.withLock { $0 } == [1])
        #expect(start.distance(to: scheduler.now) == .milliseconds(1_500))
        scheduler.advance(by: .milliseconds(1_500))
        #expect(seen.withLock { $0 } == [1, 2, 3])
        #expect(seconds(scheduler, start) == 3)
    }

    @Test func scheduleNowWaitsForTheNextAdvance() {
        let scheduler = DispatchQueue.test
        let log = Log()
        scheduler.schedule { log.append("now") }
        #expect(log.all.isEmpty)
        scheduler.advance()
        #expect(log.all == ["now"])
    }

    @Test func aDateInThePastRunsAtTheCurrentInstantAfterEarlierActions() {
        let scheduler = DispatchQueue.test
        let start = scheduler.now
        scheduler.advance(by: .seconds(5))
        let log = Log()
        scheduler.schedule { log.append("first") }
        scheduler.schedule(after: start) { log.append("past") }
        scheduler.advance()
        #expect(log.all == ["first", "past"])
        #expect(seconds(scheduler, start) == 5)
    }

    @Test func advanceToNeverMovesTheClockBackwards() {
        let scheduler = DispatchQueue.test
        let start = scheduler.now
        scheduler.advance(by: .seconds(2))
        scheduler.advance(to: start)
        #expect(seconds(scheduler, start) == 2)
    }

    @Test func repeatingActionRearmsOnAFixedSchedule() {
        let scheduler = DispatchQueue.test
        let start = scheduler.now
        let ticks = Mutex<[Int]>([])
        let token = scheduler.schedule(after: start.advanced(by: .seconds(1)), interval: .seconds(2)) {
            ticks.withLock { $0.append(start.distance(to: scheduler.now).magnitude / 1_000_000_000) }
        }
        scheduler.advance(by: .seconds(8))
        #expect(ticks.withLock { $0 } == [1, 3, 5, 7])
        #expect(scheduler.pendingActionCount == 1)
        token.cancel()
        #expect(scheduler.pendingActionCount == 0)
        scheduler.advance(by: .seconds(8))
        #expect(ticks.withLock { $0 } == [1, 3, 5, 7])
    }

    @Test func repeatingActionCanCancelItself() {
        let scheduler = DispatchQueue.test
        let count = Mutex(0)
        final class Holder: @unchecked Sendable { var token: (any Cancellable)? }
        let holder = Holder()
        holder.token = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) {
            let n = count.withLock { $0 += 1; return $0 }
            if n == 3 { holder.token?.cancel() }
        }
        scheduler.run() // terminates because the action cancelled itself
        #expect(count.withLock { $0 } == 3)
        #expect(scheduler.pendingActionCount == 0)
    }

    @Test func droppingTheCancellableCancelsTheRepetition() {
        let scheduler = DispatchQueue.test
        let count = Mutex(0)
        do {
            _ = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) { count.withLock { $0 += 1 } }
        }
        #expect(scheduler.pendingActionCount == 0)
        scheduler.advance(by: .seconds(3))
        #expect(count.withLock { $0 } == 0)
    }

    @Test func cancellingReleasesTheActionAtOnce() {
        final class Token {}
        let scheduler = DispatchQueue.test
        weak var weakToken: Token?
        var cancellable: (any Cancellable)?
        do {
            let token = Token()
            weakToken = token
            cancellable = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) { _ = token }
        }
        #expect(weakToken != nil)
        cancellable?.cancel()
        #expect(weakToken == nil)
    }

    @Test func actionsMayScheduleMoreWorkThatRunsInTheSameAdvance() {
        let scheduler = DispatchQueue.test
        let start = scheduler.now
        let log = Log()
        scheduler.schedule(after: start.advanced(by: .seconds(1))) {
            log.append("outer")
            scheduler.schedule { log.append("same instant") }
            scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { log.append("one later") }
            scheduler.schedule(after: scheduler.now.advanced(by: .seconds(5))) { log.append("too late") }
        }
        scheduler.advance(by: .seconds(2))
        #expect(log.all == ["outer", "same instant", "one later"])
        #expect(scheduler.pendingActionCount == 1)
    }

    @Test func runLimitBoundsARepeatingAction() {
        let scheduler = DispatchQueue.test
        let start = scheduler.now
        let count = Mutex(0)
        let token = scheduler.schedule(after: start, interval: .seconds(1)) { count.withLock { $0 += 1 } }
        #expect(scheduler.run(limit: 10) == false)
        #expect(count.withLock { $0 } == 10)
        #expect(seconds(scheduler, start) == 9)
        token.cancel()
        #expect(scheduler.run(limit: 10) == true)
        #expect(scheduler.executedActionCount == 10)
    }

    @Test func schedulingFromManyThreadsLosesNothing() {
        let scheduler = DispatchQueue.test
        let count = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for i in 0..<500 {
                scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(i % 7 + thread))) {
                    count.withLock { $0 += 1 }
                }
            }
        }
        #expect(scheduler.pendingActionCount == 4_000)
        scheduler.advance(by: .seconds(1))
        #expect(count.withLock { $0 } == 4_000)
    }

    @Test func standsInForARealSchedulerBehindAnyScheduler() {
        let scheduler = DispatchQueue.test
        let erased: UVAnySchedulerOf<DispatchQueue> = scheduler.eraseToUVAnyScheduler()
        let log = Log()
        erased.schedule(after: erased.now.advanced(by: .seconds(1))) { log.append("tick") }
        #expect(log.all.isEmpty)
        scheduler.advance(by: .seconds(1))
        #expect(log.all == ["tick"])
        #expect(erased.now == scheduler.now)
    }
}

@Suite("TestScheduler cancellation inside the heap")
struct TestSchedulerHeapRemovalTests {
    @Test func cancellingOneOfManyRepeatingActionsKeepsTheOthersInOrder() {
        let scheduler = DispatchQueue.test
        let start = scheduler.now
        let log = Log()
        var tokens: [any Cancellable] = []
        for i in 0..<9 {
            tokens.append(scheduler.schedule(after: start.advanced(by: .milliseconds(10 * i)), interval: .seconds(1)) {
                log.append("\(i)")
            })
        }
        tokens[4].cancel()
        tokens[0].cancel()
        tokens[8].cancel()
        scheduler.advance(by: .milliseconds(1_999))
        let once = ["1", "2", "3", "5", "6", "7"]
        #expect(log.all == once + once)
        #expect(scheduler.pendingActionCount == 6)
        tokens.removeAll()
        #expect(scheduler.pendingActionCount == 0)
    }
}
