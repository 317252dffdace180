/// One of the package's own subjects (`PassthroughSubject`,
/// `CurrentValueSubject`), which `share()` joins without the subject
/// allocating a conduit for it.
///
/// Why: `subject.share()` is the usual way to share a subject, and its
/// connection is a subscriber the subject's engine cannot name, so the
/// engine would keep it in a conduit plus a holder (two allocations per
/// connection, see `DownstreamSlot`). Instead the connection is itself a
/// ``ConduitBase``: the subject lists it directly, delivers to it through
/// its `deliver` entry point, and the connection's requests and cancel go
/// to the subject as any conduit's do.
@usableFromInline
internal protocol EngineSubject<Output, Failure>: ConduitParent {
    /// Lists `connection` as a subscriber whose subscription is itself, or
    /// returns the completion when the subject has completed (nothing is
    /// listed then).
    func attach(connection: ConduitBase<Output, Failure>) -> Subscribers.Completion<Failure>?
}
