import Synchronization

/// State that is only read and written under its own lock: the inline
/// `Mutex` of Synchronization, for state that is not `Sendable`.
///
/// Every operator subscription, subject and connection keeps its mutable
/// state in one of these, stored as a `let` in the owning class (inline, no
/// allocation, as the `Mutex` it wraps). `Mutex` itself takes its state as
/// `sending` and returns results as `sending`, which Swift 6 refuses for the
/// values this state holds (subscribers, subscriptions, closures and values
/// that came from parameters). `Locked` accepts them: that is the one place
/// the package states, unchecked by the compiler, that such state is safe to
/// guard with a lock. The rule that makes it safe, for every owner:
///
/// - decide under the lock, act outside it: the body only reads and writes
///   the state and returns what to do (a subscription to cancel, a
///   subscriber to call); whatever it returns is called after `withLock`
///   returned, never inside the body (the downstream may call back in);
/// - what the body returns is then used on the calling thread only, as the
///   publisher protocols already require of subscriptions and subscribers.
///
/// Threading: `withLock` may be called from any thread; it is not
/// re-entrant (calling it again from its own body deadlocks).
///
/// ```swift
/// let state = Locked(State())
/// let upstream = state.withLock { s -> (any Subscription)? in
///     defer { s.upstream = nil }
///     return s.upstream
/// }
/// upstream?.cancel()
/// ```
@frozen @usableFromInline
package struct Locked<State>: ~Copyable, Sendable {
    /// The lock and the state; the state is only reached through `withLock`.
    @usableFromInline internal let mutex: Mutex<UncheckedSendable<State>>

    /// Guards `initial` from now on.
    @inlinable @inline(__always)
    package init(_ initial: State) {
        mutex = Mutex(UncheckedSendable(initial))
    }

    /// Runs `body` with exclusive access to the state and returns its
    /// result, which is not `sending`-checked (see the type's rule: act on
    /// it outside the lock).
    ///
    /// ```swift
    /// let count = state.withLock { s in
    ///     s.count += 1
    ///     return s.count
    /// }
    /// ```
    // The non-throwing form, preferred by the compiler for closures that
    // do not throw: without the typed-throws generic parameter the
    // closure and the box inline completely (measured: the typed form
    // left value-witness copies of the result in `share().sink` + cancel).
    @inlinable @inline(__always)
    package func withLock<Result>(_ body: (inout State) -> Result) -> Result {
        mutex.withLock { box -> UncheckedSendable<Result> in
            UncheckedSendable(body(&box.value))
        }.value
    }

    /// The same for a body that throws: the error is rethrown after the
    /// lock is released.
    ///
    /// ```swift
    /// let item = try state.withLock { s throws(QueueError) in try s.queue.pop() }
    /// ```
    @inlinable @inline(__always)
    package func withLock<Result, E: Error>(_ body: (inout State) throws(E) -> Result) throws(E) -> Result {
        // Why the box: Mutex returns `sending`; the result leaves the lock
        // under the rule above, so it is boxed across the boundary (a struct:
        // free once inlined).
        try mutex.withLock { (box) throws(E) -> UncheckedSendable<Result> in
            UncheckedSendable(try body(&box.value))
        }.value
    }

    /// A copy of the state as it is now, taken under the lock: for
    /// descriptions and tests, not for decisions (it may be stale as soon as
    /// it is returned).
    ///
    /// ```swift
    /// print(state.snapshot.status)
    /// ```
    @inlinable
    package var snapshot: State {
        withLock { $0 }
    }
}
