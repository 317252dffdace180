import CUVCombineThreadIdentity
import Synchronization

/// Serialises the calls an operator with several inputs makes into its
/// downstream (`merge`, `combineLatest`, `zip`, `flatMap`,
/// `switchToLatest`), and every subject's and share's deliveries
/// (`SubjectEngine`).
///
/// Inputs may deliver on different threads at once, but Combine promises a
/// subscriber one call at a time, and once `cancel()` has returned no
/// further value may reach it. The operator therefore decides and delivers
/// while holding this gate; `cancel()` takes it too, so it waits for a value
/// in flight on another thread.
///
/// The gate is re-entrant for the thread that holds it: a downstream may
/// `request`, `cancel` or make an input send from inside `receive(_:)`.
/// Such a *nested* call only records what it changed; the outermost frame
/// finishes the work before it lets go of the gate.
///
/// Rule for every user: never call an upstream subscription (`request`,
/// `cancel`) while holding the gate. An upstream such as a subject holds its
/// own lock while it sends, and may be waiting for this gate on another
/// thread; calling into it from inside the gate would deadlock. Operators
/// record upstream calls in their state and make them after the outermost
/// frame has released the gate.
///
/// A struct with no copies (its atomics live inline in the owning
/// operator), so it costs no allocation.
///
/// ## Why not a `Mutex`
///
/// Every value a subject sends passes the gate once, and a `Mutex` costs
/// two atomic read-modify-writes (lock and unlock), measured at ~4 ns each
/// on this project's machine, a third of a one-subscriber send (issue 32).
/// Here the holder's identity *is* the lock word: taking the gate is one
/// compare-and-swap (0 to the caller's identity), letting go is a plain
/// store of 0 followed by a plain load of the parked count. A thread that
/// finds the gate held spins briefly, then parks on a futex, and a release
/// that finds parked threads hands the gate to them (so a hot sender
/// cannot starve a `cancel()` waiting on another thread); for the
/// holder's store-then-load to be enough, the parking thread issues an
/// asymmetric heavy barrier first (`membarrier`, see
/// `uvcombine_gate_parking.h`), so either the holder sees it parked and
/// wakes it, or it sees the gate open. Parking is also bounded by a
/// timeout, so where `membarrier` is missing a lost wake-up costs at most
/// that timeout. Contention (two threads sending to one subject, a cancel
/// racing a delivery) pays microseconds; the uncontended path pays one
/// atomic instruction.
///
/// The package's one re-entrant delivery gate: the timer fan-out, the
/// NotificationCenter publisher, the TCP publishers and the C API's fetch
/// use it too (`package`).
///
/// ```swift
/// let gate = DownstreamGate()
/// gate.withGate { nested in deliver() }   // a delivery
/// gate.withGate { _ in detach() }         // cancel: waits for the delivery in flight
/// ```
@usableFromInline
package struct DownstreamGate: ~Copyable {
    /// The identity of the thread holding the gate, or 0 when it is open.
    @usableFromInline internal let owner = Atomic<UInt>(0)
    /// Threads parked, or about to park, waiting for the gate.
    @usableFromInline internal let parked = Atomic<UInt32>(0)
    /// The futex word parked threads sleep on: bumped by a release that
    /// found parked threads, before it wakes them.
    @usableFromInline internal let wakeups = Atomic<UInt32>(0)

    /// An open gate. Any thread.
    @inlinable
    package init() {}

    /// Whether the calling thread holds the gate, i.e. is inside a delivery
    /// of this operator. Only the holder ever stores its own identity, so a
    /// relaxed load cannot give a false positive.
    @inlinable
    package var isHeldByCurrentThread: Bool {
        owner.load(ordering: .relaxed) == currentThreadIdentity()
    }

    /// Runs `body` holding the gate. `nested` is true when the calling thread
    /// already held it (the call came from inside a delivery).
    @inlinable @inline(__always)
    package func withGate<R>(_ body: (_ nested: Bool) -> R) -> R {
        let me = currentThreadIdentity()
        if owner.load(ordering: .relaxed) == me {
            return body(true)
        }
        if !owner.compareExchange(expected: 0, desired: me, ordering: .acquiring).exchanged {
            acquireContended(me)
        }
        let result = body(false)
        owner.store(0, ordering: .releasing)
        // The store above must reach memory before this load is made, as
        // the compiler emitted them: the parking side's heavy barrier
        // orders them in the processor (see the type's comment).
        uvcombine_light_barrier()
        if parked.load(ordering: .relaxed) != 0 {
            handOff()
        }
        return result
    }

    /// The owner value of a gate released to its parked threads: only a
    /// thread that was parked when it was released may take it (see
    /// ``handOff()``). Never a thread identity (those are addresses).
    @usableFromInline internal static var handedOff: UInt { 1 }

    /// Takes the gate when the first attempt found it held: spins a little
    /// (deliveries are short), then parks until a release wakes it.
    @usableFromInline @inline(never)
    internal func acquireContended(_ me: UInt) {
        var spins = 0
        // The wake-up counter when this thread first parked: once it has
        // moved, a hand-off may be meant for this thread, and stays so
        // until it takes the gate (see ``park(_:since:)``).
        var since: UInt32?
        while true {
            if owner.load(ordering: .relaxed) == 0,
               owner.compareExchange(expected: 0, desired: me, ordering: .acquiring).exchanged {
                return
            }
            if spins < Self.spinLimit {
                spins += 1
                uvcombine_spin_hint()
                continue
            }
            if since == nil { since = wakeups.load(ordering: .acquiring) }
            if park(me, since: since.unsafelyUnwrapped) { return }
        }
    }

    /// Parks until the gate may be open. Returns true when it took the
    /// gate, handed off to it.
    ///
    /// `since` is the wake-up counter read before this thread first counted
    /// itself parked: any release that saw it counted bumped the counter
    /// afterwards, so a counter moved since then means a hand-off may be
    /// meant for this thread. Fences every thread (so a holder's release
    /// either sees the count or this thread sees its store), then sleeps
    /// unless the gate is open or handed off to it; the sleep ends at the
    /// next release that finds it parked (the counter moves), or the
    /// timeout.
    @usableFromInline
    internal func park(_ me: UInt, since: UInt32) -> Bool {
        let current = wakeups.load(ordering: .acquiring)
        parked.wrappingAdd(1, ordering: .sequentiallyConsistent)
        _ = uvcombine_heavy_barrier()
        let now = owner.load(ordering: .acquiring)
        let mayTake = now == Self.handedOff && wakeups.load(ordering: .acquiring) != since
        if now != 0 && !mayTake {
            withUnsafePointer(to: wakeups) { word in
                word.withMemoryRebound(to: UInt32.self, capacity: 1) { word in
                    uvcombine_park(word, current, Self.parkTimeoutNanoseconds)
                }
            }
        }
        parked.wrappingSubtract(1, ordering: .relaxed)
        return wakeups.load(ordering: .acquiring) != since
            && owner.compareExchange(expected: Self.handedOff, desired: me, ordering: .acquiringAndReleasing).exchanged
    }

    /// A release found parked threads: hands the gate to them and wakes
    /// them.
    ///
    /// Why hand off rather than just wake: a thread that sends in a loop
    /// releases and re-takes the gate within nanoseconds, long before a
    /// woken thread runs, so a `cancel()` from another thread could wait
    /// through any number of values (measured: 4 timer ticks of 2 ms each
    /// in UVTimerPublisherTests). Marked handed off, the gate refuses the
    /// fast path and every thread that began parking after this release;
    /// one of the threads parked before it takes it. Only an arrival in the few
    /// instructions between the store of 0 and this exchange can still
    /// take the gate first, and its own release then hands off.
    @usableFromInline @inline(never)
    internal func handOff() {
        _ = owner.compareExchange(expected: 0, desired: Self.handedOff, ordering: .acquiringAndReleasing)
        wakeups.wrappingAdd(1, ordering: .releasing)
        withUnsafePointer(to: wakeups) { word in
            word.withMemoryRebound(to: UInt32.self, capacity: 1) { uvcombine_unpark_all($0) }
        }
    }

    /// Attempts before parking: a few microseconds, about one short
    /// delivery.
    @usableFromInline internal static var spinLimit: Int { 100 }

    /// The longest a parked thread sleeps without a wake-up (the bound on a
    /// lost wake-up where `membarrier` is missing): 1 ms.
    @usableFromInline internal static var parkTimeoutNanoseconds: Int64 { 1_000_000 }
}
