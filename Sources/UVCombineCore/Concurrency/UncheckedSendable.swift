/// Carries a value that is not `Sendable` across a boundary that demands
/// one, where the code around it guarantees the value is used safely: a
/// continuation's payload handed to the one task waiting for it, a closure
/// hopped to the thread that runs it.
///
/// Not for state behind a lock: that is ``Locked`` (which uses this box
/// internally, once, with its rule). Every use states why the value cannot
/// be used from two threads at once. A struct, so it costs nothing.
///
/// The package's one such box: the loop, HTTP and C API modules use it too.
///
/// ```swift
/// let box = UncheckedSendable(action)
/// loop.schedule { box.value() }
/// ```
@frozen @usableFromInline
package struct UncheckedSendable<Value>: @unchecked Sendable {
    /// The boxed value.
    @usableFromInline package var value: Value

    /// Boxes `value`.
    @inlinable @inline(__always)
    package init(_ value: Value) {
        self.value = value
    }
}
