#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A number identifying the calling thread, never 0.
///
/// Used by re-entrancy checks: a thread that finds its own identity stored
/// somewhere knows it stored it itself, so relaxed atomics suffice.
@inlinable @inline(__always)
internal func currentThreadIdentity() -> UInt {
    #if canImport(Darwin)
    return UInt(bitPattern: pthread_self())
    #else
    return UInt(pthread_self())
    #endif
}
