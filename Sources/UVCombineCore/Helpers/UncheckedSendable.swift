/// Carries a value that is not `Sendable` into a `Mutex`.
///
/// `Mutex` takes its state as `sending`, which Swift 6 refuses for values
/// that came from a parameter (closures, subscribers). Every use of this box
/// sits inside a mutex: the value is only read or written under the lock, and
/// whatever is taken out is called outside it, which is the contract the
/// publisher protocols already impose. A struct, so it costs nothing.
@frozen
@usableFromInline
internal struct UncheckedSendable<Value>: @unchecked Sendable {
    @usableFromInline internal var value: Value

    @inlinable @inline(__always)
    internal init(_ value: Value) {
        self.value = value
    }
}
