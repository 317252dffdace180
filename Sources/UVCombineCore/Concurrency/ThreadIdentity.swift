import CUVCombineThreadIdentity

/// A number identifying the calling thread, never 0, so that 0 can stand
/// for "no thread".
///
/// The one thread-identity helper of the package: the re-entrant delivery
/// gates, the loop's home-thread checks and the C API's thread rules all
/// use it. A thread that finds its own identity stored somewhere knows it
/// stored it itself, so relaxed atomics suffice for re-entrancy checks.
/// Any thread, sync or async code.
///
/// The value is the thread pointer (on x86-64 Linux the same number
/// `pthread_self()` returns), read by one `volatile` asm instruction in
/// `CUVCombineThreadIdentity`, not a call.
///
/// Why not `pthread_self()` here: glibc declares it
/// `__attribute__((const))`, so LLVM takes two calls in one function to
/// return the same value and merges them or hoists one out of a loop. In an
/// async function the two calls may sit on either side of an `await`,
/// which can resume on another thread: measured here,
/// `for _ in 0..<1000 { await actor.bump() }` with `pthread_self()`
/// inlined into the loop reported the caller's pool thread for all 1,000
/// calls that ran on the loop thread (issue 29). A `volatile` asm statement
/// is never merged with another nor moved across a call or a suspension.
/// The earlier fix, a call the optimiser could not see through, was right
/// but cost two calls per gate entry, 5 to 8 ns on a subject's
/// one-subscriber send (issue 32).
///
/// ```swift
/// let owner = Atomic<UInt>(0)
/// owner.store(currentThreadIdentity(), ordering: .relaxed)
/// ```
@inlinable @inline(__always)
package func currentThreadIdentity() -> UInt {
    UInt(uvcombine_thread_identity())
}
