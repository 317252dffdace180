/// Carries a value that is not `Sendable` into a `Mutex`.
///
/// `Mutex` takes its state as `sending`, which Swift 6 refuses for values
/// that came from a parameter (subscribers, closures). Every use sits inside
/// a mutex: the value is only read or written under the lock, and whatever is
/// taken out is called outside it. A struct, so it costs nothing. (The same
/// helper as the core's, which is internal to that module.)
@frozen
@usableFromInline
internal struct UncheckedSendable<Value>: @unchecked Sendable {
    @usableFromInline internal var value: Value

    @inlinable @inline(__always)
    internal init(_ value: Value) {
        self.value = value
    }
}

/// Named traps for contract violations, so a crash says which rule broke.
@inlinable @inline(never)
internal func violation(_ rule: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("UVCombine API violation: \(rule)", file: file, line: line)
}
