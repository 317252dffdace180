import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Carries a value that is not `Sendable` into a `Mutex`.
///
/// `Mutex` takes its state as `sending`, which Swift 6 refuses for values
/// that came from a parameter (subscribers). Every use sits inside a mutex:
/// the value is only read or written under the lock, and whatever is taken
/// out is called outside it. A struct, so it costs nothing. (The same helper
/// as the core's, which is internal to that module.)
@frozen
@usableFromInline
internal struct UncheckedSendable<Value>: @unchecked Sendable {
    @usableFromInline internal var value: Value

    @inlinable @inline(__always)
    internal init(_ value: Value) {
        self.value = value
    }
}

/// The calling thread's identity, never zero, for the re-entrant delivery
/// gate.
@inlinable @inline(__always)
internal func sessionThreadID() -> UInt {
    #if canImport(Darwin)
    return UInt(bitPattern: pthread_self())
    #else
    return UInt(pthread_self())
    #endif
}

/// Named traps for contract violations in the session and its publishers.
@inlinable @inline(never)
internal func sessionViolation(_ rule: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("UVCombine API violation: \(rule)", file: file, line: line)
}
