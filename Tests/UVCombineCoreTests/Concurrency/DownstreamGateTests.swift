import Synchronization
import Testing
@testable import UVCombineCore
import UVCombineTesting

#if canImport(Glibc)
import Glibc
#endif

/// A gate and a counter it guards, shared by the threads of one test.
private final class Guarded: @unchecked Sendable {
    // @unchecked Sendable: `count` is only touched while holding `gate`.
    let gate = DownstreamGate()
    var count = 0
    /// Threads inside `withGate` right now; more than 1 is a broken gate.
    let inside = Atomic<Int>(0)
    let overlaps = Atomic<Int>(0)

    /// One guarded increment, noting any other thread inside at once.
    func enter(holdingFor spins: Int = 0) {
        gate.withGate { nested in
            precondition(!nested)
            if inside.wrappingAdd(1, ordering: .relaxed).newValue != 1 { overlaps.add(1, ordering: .relaxed) }
            count += 1
            var spin = 0
            while spin < spins { spin += 1; blackHole(spin) }
            inside.wrappingSubtract(1, ordering: .relaxed)
        }
    }
}

@inline(never)
private func blackHole(_ value: Int) { _ = value }

/// The package's re-entrant delivery gate (issue 32's one-atomic rewrite):
/// taken with one compare-and-swap, left with a plain store, contended
/// threads parked on a futex.
@Suite("Downstream gate")
struct DownstreamGateTests {
    @Test("excludes: 4 threads x 20,000 entries count exactly, never two inside at once")
    func excludes() {
        let guarded = Guarded()
        TestThread.run(4) { _ in
            for _ in 0..<20_000 { guarded.enter() }
        }
        #expect(guarded.count == 80_000)
        #expect(guarded.overlaps.load(ordering: .relaxed) == 0)
        #expect(guarded.gate.owner.load(ordering: .relaxed) == 0)
        #expect(guarded.gate.parked.load(ordering: .relaxed) == 0)
    }

    @Test("excludes when holders stay long enough for the others to park")
    func excludesWithParking() {
        let guarded = Guarded()
        TestThread.run(3) { _ in
            for _ in 0..<300 { guarded.enter(holdingFor: 20_000) }
        }
        #expect(guarded.count == 900)
        #expect(guarded.overlaps.load(ordering: .relaxed) == 0)
        #expect(guarded.gate.parked.load(ordering: .relaxed) == 0)
    }

    @Test("is re-entrant on the holding thread, and held only there")
    func reentrant() {
        let box = Guarded()
        let heldBefore = box.gate.isHeldByCurrentThread
        #expect(!heldBefore)
        let me = UInt(pthread_self())
        let seenElsewhere = Atomic<Int>(-1)
        let (outer, inner) = box.gate.withGate { outer -> (Bool, Bool) in
            let heldInside = box.gate.isHeldByCurrentThread
            #expect(heldInside)
            #expect(box.gate.owner.load(ordering: .relaxed) == me)
            let other = TestThread { seenElsewhere.store(box.gate.isHeldByCurrentThread ? 1 : 0, ordering: .relaxed) }
            other.join()
            return (outer, box.gate.withGate { $0 })
        }
        #expect(outer == false)
        #expect(inner == true)
        #expect(seenElsewhere.load(ordering: .relaxed) == 0)
        let heldAfter = box.gate.isHeldByCurrentThread
        #expect(!heldAfter)
        #expect(box.gate.owner.load(ordering: .relaxed) == 0)
    }

    /// The release's plain store is followed by a load of the parked
    /// count: a thread that parked before the release is woken by it (the
    /// wake-up counter moves), not left to its timeout.
    @Test("a release wakes a thread parked behind it")
    func releaseWakesTheParkedThread() {
        let box = Guarded()
        let holderThread = Atomic<UInt>(0)
        let waiterThread = Atomic<UInt>(0)
        let waiterRanOn = Atomic<UInt>(0)
        let holding = Atomic<Bool>(false)
        let holder = TestThread {
            box.gate.withGate { _ in
                holderThread.store(UInt(pthread_self()), ordering: .relaxed)
                holding.store(true, ordering: .releasing)
                // Release only once the waiter has counted itself parked.
                while box.gate.parked.load(ordering: .acquiring) == 0 { sched_yield() }
            }
        }
        while !holding.load(ordering: .acquiring) { sched_yield() }
        let waiter = TestThread {
            waiterThread.store(UInt(pthread_self()), ordering: .relaxed)
            box.gate.withGate { _ in waiterRanOn.store(UInt(pthread_self()), ordering: .relaxed) }
        }
        holder.join()
        waiter.join()
        #expect(box.gate.wakeups.load(ordering: .relaxed) >= 1)
        #expect(waiterRanOn.load(ordering: .relaxed) == waiterThread.load(ordering: .relaxed))
        #expect(waiterThread.load(ordering: .relaxed) != holderThread.load(ordering: .relaxed))
        #expect(box.gate.owner.load(ordering: .relaxed) == 0)
        #expect(box.gate.parked.load(ordering: .relaxed) == 0)
    }

    /// The release hands the gate to the parked thread: the releasing
    /// thread, entering again at once, comes second (without the hand-off
    /// it re-took the gate within nanoseconds, before the woken thread
    /// ran, and a cancel waited through several timer ticks).
    @Test("a thread parked behind a holder goes before the holder's next entry")
    func releaseHandsOffToTheParkedThread() {
        let box = Guarded()
        let order = Mutex<[String]>([])
        let holding = Atomic<Bool>(false)
        let holder = TestThread {
            box.gate.withGate { _ in
                holding.store(true, ordering: .releasing)
                while box.gate.parked.load(ordering: .acquiring) == 0 { sched_yield() }
            }
            box.gate.withGate { _ in order.withLock { $0.append("holder again") } }
        }
        while !holding.load(ordering: .acquiring) { sched_yield() }
        let waiter = TestThread {
            box.gate.withGate { _ in order.withLock { $0.append("waiter") } }
        }
        holder.join()
        waiter.join()
        #expect(order.withLock { $0 } == ["waiter", "holder again"])
        #expect(box.gate.owner.load(ordering: .relaxed) == 0)
        #expect(box.gate.parked.load(ordering: .relaxed) == 0)
    }

    @Test("an uncontended entry and exit leaves no wake-up behind")
    func uncontendedLeavesNothing() {
        let box = Guarded()
        for _ in 0..<1_000 { box.gate.withGate { _ in } }
        #expect(box.gate.wakeups.load(ordering: .relaxed) == 0)
        #expect(box.gate.parked.load(ordering: .relaxed) == 0)
        #expect(box.gate.owner.load(ordering: .relaxed) == 0)
    }
}
