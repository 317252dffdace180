import Dispatch
import Testing
import UVCombineCore
import UVCombineDispatch
import UVCombineTesting

/// `receive(on:)` keeps pending values in a ring and schedules the same
/// pre-formed action once per value (as Combine makes one `schedule` call
/// per value): the steady state allocates nothing per value beyond what the
/// scheduler's `schedule(options:_:)` costs. Release only
/// (`isOptimizedBuild`, see AllocationTests.swift).
@Suite("Allocations: receive(on:)", .enabled(if: isOptimizedBuild, "allocation counts are meaningful only with -c release"))
struct ReceiveOnAllocationTests {
    @Test func immediateSchedulerAllocatesNothingPerValue() {
        // With ImmediateScheduler every action runs at once: this also
        // shows that scheduling an action allocates nothing.
        let subject = PassthroughSubject<Int, Never>()
        var total = 0
        let c = subject.receive(on: ImmediateScheduler.shared).sink { total &+= $0 }
        for i in 0..<1_000 { subject.send(i) } // warm up
        let mallocs = AllocationCounter.count {
            for i in 0..<10_000 { subject.send(i) }
        }
        #expect(mallocs == 0)
        #expect(total > 0)
        c.cancel()
    }

    @Test func testSchedulerActionsAllocateNothingOnceWarm() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        var total = 0
        let c = subject.receive(on: scheduler).map { $0 &* 2 }.sink { total &+= $0 }
        // Warm up: the ring and the scheduler's heap grow to the batch size.
        for _ in 0..<10 {
            for i in 0..<256 { subject.send(i) }
            scheduler.advance()
        }
        let before = scheduler.executedActionCount
        let mallocs = AllocationCounter.count {
            for _ in 0..<100 {
                for i in 0..<256 { subject.send(i) }
                scheduler.advance()
            }
        }
        #expect(mallocs == 0)
        #expect(scheduler.executedActionCount - before == 100 * 256) // one action per value
        #expect(total > 0)
        c.cancel()
    }

    @Test func theRingGrowsOnlyWhenABatchOutgrowsIt() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        var total = 0
        let c = subject.receive(on: scheduler).sink { total &+= $0 }
        func batch(_ size: Int) -> Int {
            AllocationCounter.count {
                for i in 0..<size { subject.send(i) }
                scheduler.advance()
            }
        }
        _ = batch(1) // metadata, the scheduler's heap
        #expect(batch(100) > 0)   // the ring (and the scheduler's heap) grow to 128 slots
        #expect(batch(100) == 0)  // and are reused
        #expect(batch(128) == 0)
        #expect(batch(129) > 0)   // grow again only past their capacity
        #expect(batch(50) == 0)
        #expect(total > 0)
        c.cancel()
    }
}
