#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A number identifying the calling thread, never 0, so that 0 can stand
/// for "no thread".
///
/// The one thread-identity helper of the package: the re-entrant delivery
/// gates, the loop's home-thread checks and the C API's thread rules all
/// use it. A thread that finds its own identity stored somewhere knows it
/// stored it itself, so relaxed atomics suffice for re-entrancy checks.
/// Any thread, sync or async code; costs one call to `pthread_self()`
/// through `opaqueThreadIdentity()`.
///
/// ```swift
/// let owner = Atomic<UInt>(0)
/// owner.store(currentThreadIdentity(), ordering: .relaxed)
/// ```
@inlinable @inline(__always)
package func currentThreadIdentity() -> UInt {
    opaqueThreadIdentity()
}

/// `pthread_self()` behind a call the optimiser can neither inline nor
/// reason about.
///
/// Why: glibc declares `pthread_self` `__attribute__((const))`, so LLVM
/// takes two calls in one function to return the same value and merges
/// them or hoists one out of a loop. In an async function the two calls
/// may sit on either side of an `await`, which can resume on another
/// thread: measured here, `for _ in 0..<1000 { await actor.bump() }` with
/// the identity read inlined into the loop reported the caller's pool
/// thread for all 1,000 calls that ran on the loop thread. Every identity
/// read of the package goes through this one function, so `isInLoop`,
/// the loop's isolation checks and the delivery gates stay right wherever
/// they are inlined. `@_optimize(none)` keeps LLVM from deriving the
/// `const` attribute for this function from its body; `@inline(never)`
/// keeps the call.
@usableFromInline @inline(never) @_optimize(none)
internal func opaqueThreadIdentity() -> UInt {
    #if canImport(Darwin)
    return UInt(bitPattern: pthread_self())
    #else
    return pthread_self()
    #endif
}
