import Synchronization

/// Serialises the calls an operator with several inputs makes into its
/// downstream (`merge`, `combineLatest`, `zip`, `flatMap`,
/// `switchToLatest`).
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
/// A struct with no copies (its mutex and atomic live inline in the owning
/// operator), so it costs no allocation.
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
    @usableFromInline internal let mutex = Mutex(())
    /// The thread holding `mutex`, or 0.
    @usableFromInline internal let owner = Atomic<UInt>(0)

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
        // The result leaves through a local rather than `withLock`'s
        // `sending` return: what the body returns is the operator's own
        // business, guarded by the operator's state lock.
        var result: R?
        mutex.withLock { _ in
            owner.store(me, ordering: .relaxed)
            result = body(false)
            owner.store(0, ordering: .relaxed)
        }
        return result.unsafelyUnwrapped
    }
}
