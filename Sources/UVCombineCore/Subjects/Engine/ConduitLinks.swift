/// What a conduit knows of its subject, under its lock.
///
/// Not nested in the generic conduit, and the subject kept as `AnyObject`:
/// a type whose layout depends on no generic parameter needs no generic
/// metadata lookup (some 400 instructions each) in the conduit's
/// unspecialised code (its deinitialiser, `dropLinks`), which runs on every
/// cancel. The specialised paths restore the subject's type with
/// `unsafeDowncast`.
@usableFromInline
internal struct ConduitLinks {
    @usableFromInline var parent: AnyObject?
    /// The demand when the conduit left its subject (for the mirror).
    @usableFromInline var lastDemand: Subscribers.Demand = .none
    @usableFromInline var dropped = false

    @inlinable init(parent: AnyObject) { self.parent = parent }
}
