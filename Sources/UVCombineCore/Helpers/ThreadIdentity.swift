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
/// Any thread; costs one `pthread_self()`.
///
/// ```swift
/// let owner = Atomic<UInt>(0)
/// owner.store(currentThreadIdentity(), ordering: .relaxed)
/// ```
@inlinable @inline(__always)
package func currentThreadIdentity() -> UInt {
    #if canImport(Darwin)
    return UInt(bitPattern: pthread_self())
    #else
    return UInt(pthread_self())
    #endif
}
