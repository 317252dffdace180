/// Carries a value that is not `Sendable` into a `Mutex`.
///
/// `Mutex` takes its state as `sending`, which Swift 6 refuses for values
/// that came from a parameter (closures, subscribers). Every use of this box
/// sits inside a mutex: the value is only read or written under the lock, and
/// whatever is taken out is called outside it, which is the contract the
/// publisher protocols already impose. A struct, so it costs nothing.
///
/// The package's one such box: the loop, HTTP and C API modules use it too.
///
/// ```swift
/// let state = Mutex(UncheckedSendable(State()))
/// let taken = state.withLock { UncheckedSendable($0.value.downstream) }.value
/// ```
@frozen @usableFromInline
package struct UncheckedSendable<Value>: @unchecked Sendable {
    /// The boxed value; read and written only under the owning mutex.
    @usableFromInline package var value: Value

    /// Boxes `value`.
    @inlinable @inline(__always)
    package init(_ value: Value) {
        self.value = value
    }
}
