/// Where a subscription that must let go of its subscriber (on completion
/// or cancel, as Combine's do) keeps it, so that delivering a value costs
/// no reference counting and no copy.
///
/// The subscriber sits in a ``DownstreamHolder`` with a `let` field, held
/// as an `Unmanaged` reference that can be dropped. Why not a `var` in the
/// subscription: a value stored in a `var` (optional or not, exclusivity
/// checks on or off) is copied before each call. For an operator's inner
/// struct (`map`, `filter`, ...) that retains and releases every closure
/// and object in the chain, about 500 instructions per value for
/// `subject.map.filter.map.sink` against about 120 without the copy; for a
/// class (a `Sink`) reached through an unmanaged reference, the compiler
/// still retains the closure it calls, and telling the two cases apart at
/// run time costs a `swift_isClassType` call per value for structs. The
/// holder costs one allocation per subscription instead.
///
/// The slot itself is not generic (the reference is kept as
/// `Unmanaged<AnyObject>`; only its methods name the subscriber type): a
/// stored property whose type depends on no generic parameter needs no
/// generic type metadata in the unspecialised code that touches it
/// (deinitialisers, `cancel()` reached through `any Subscription`), where
/// each lookup costs some 400 instructions at run time. The holder's type
/// is restored by `unsafeDowncast` in specialised code, where it is free.
///
/// Not thread-safe by itself: the owner decides (under its own lock or
/// gate) when to ``take()``; ``withDownstream(_:)`` must not race with the
/// release of what `take()` returned.
@usableFromInline
internal struct DownstreamSlot {
    @usableFromInline internal var object: Unmanaged<AnyObject>?

    @inlinable
    internal init<Downstream: Subscriber>(_ downstream: Downstream) {
        object = Unmanaged.passRetained(DownstreamHolder(downstream) as AnyObject)
    }

    /// Keeps a class subscriber as itself, without a holder: read back
    /// only through ``withObject(as:_:)`` or
    /// ``withDownstream(as:isObject:_:)``.
    @inlinable
    internal init(object: AnyObject) {
        self.object = Unmanaged.passRetained(object)
    }

    /// Calls `body` with the class subscriber kept by ``init(object:)``,
    /// borrowed: a cast to a type the compiler knows to be a class keeps
    /// the borrow, so a delivery costs no reference counting.
    @inlinable @inline(__always)
    internal func withObject<Downstream: AnyObject, R>(as type: Downstream.Type,
                                                       _ body: (Downstream) -> R) -> R? {
        guard let object else { return nil }
        return object._withUnsafeGuaranteedRef { body(unsafeDowncast($0, to: Downstream.self)) }
    }

    /// Calls `body` with the downstream however it is kept, for the paths
    /// off the per-value one (completion, mirrors): an object is cast
    /// without a static class type there, which costs a retain.
    @inlinable
    internal func withDownstream<Downstream: Subscriber, R>(as type: Downstream.Type, isObject: Bool,
                                                            _ body: (Downstream) -> R) -> R? {
        guard isObject else { return withDownstream(as: type, body) }
        guard let object else { return nil }
        return body(unsafeBitCast(object.takeUnretainedValue(), to: Downstream.self))
    }

    /// Calls `body` with the downstream, borrowed in place; `nil` once
    /// released. `type` must be the type the slot was made with.
    @inlinable @inline(__always)
    internal func withDownstream<Downstream: Subscriber, R>(as type: Downstream.Type,
                                                            _ body: (Downstream) -> R) -> R? {
        guard let object else { return nil }
        return object._withUnsafeGuaranteedRef {
            body(unsafeDowncast($0, to: DownstreamHolder<Downstream>.self).downstream)
        }
    }

    /// Empties the slot and hands over the reference it held (release it
    /// outside any lock: deinitialisers may run).
    @inlinable
    internal mutating func take() -> Unmanaged<AnyObject>? {
        defer { object = nil }
        return object
    }
}

/// A value-type subscriber in a box with a `let` field, so it can be
/// borrowed without a copy (see ``DownstreamSlot``).
@usableFromInline
internal final class DownstreamHolder<Downstream: Subscriber> {
    @usableFromInline internal let downstream: Downstream

    @inlinable
    internal init(_ downstream: Downstream) {
        self.downstream = downstream
    }
}
