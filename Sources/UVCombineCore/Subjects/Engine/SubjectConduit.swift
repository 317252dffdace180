/// The conduit for one concrete subscriber type and subject type.
///
/// The subscriber is read on the value path under the subject's gate,
/// without reference counting: a class subscriber is kept as an
/// `Unmanaged` (retained by hand), any other in an optional. Both are
/// cleared only by `dropLinks`, after the conduit has left the subject's
/// list, when no delivery can reach it any more.
///
/// Why `Input` and `Failure` are parameters of their own (always
/// `Downstream.Input` and `Downstream.Failure`): the runtime builds the
/// superclass's metadata from its mangled name the first time a conduit
/// type is used. Named by generic parameters, `ConduitBase<Input, Failure>`
/// is read from the arguments the metadata accessor was given; named by
/// `Downstream.Input`, it needs `Downstream`'s `Subscriber` conformance,
/// which the runtime finds by scanning every conformance record of the
/// image (about 3,000: 0.13 M instructions at the C library's start-up,
/// README "Footprint").
@usableFromInline
internal final class SubjectConduit<Input, Failure, Downstream: Subscriber, Parent: ConduitParent>:
    ConduitBase<Input, Failure>,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == Input, Downstream.Failure == Failure,
          Parent.Output == Input, Parent.Failure == Failure
{
    /// The subscriber, held without reference counting on the value path;
    /// empty once dropped. Unchecked exclusivity: a checked access costs
    /// ~7 ns per value, and the value path only reads while no writer can
    /// run (see above).
    @exclusivity(unchecked) @usableFromInline var slot: DownstreamSlot
    @usableFromInline let links: Locked<ConduitLinks>
    @usableFromInline let name: StaticString
    /// The subscriber is a class kept as itself (``DownstreamSlot/init(object:)``).
    @usableFromInline let holdsObject: Bool

    /// A class subscriber, kept without a holder.
    @inlinable
    init(parent: Parent, object downstream: Downstream, name: StaticString) where Downstream: AnyObject {
        slot = DownstreamSlot(object: downstream)
        links = Locked(ConduitLinks(parent: parent))
        self.name = name
        holdsObject = true
        super.init(
            deliver: { base, value in
                unsafeDowncast(base, to: SubjectConduit<Input, Failure, Downstream, Parent>.self).slot.withObject(as: Downstream.self) { $0.receive(value) } ?? .none
            },
            // Closures, not the static methods themselves: a partially
            // applied static method captures the generic metatypes.
            request: { base, demand in SubjectConduit.forwardRequest(base, demand) },
            cancel: { base in SubjectConduit.forwardCancel(base) })
    }

    @inlinable
    init(parent: Parent, downstream: Downstream, name: StaticString) {
        holdsObject = false
        slot = DownstreamSlot(downstream)
        links = Locked(ConduitLinks(parent: parent))
        self.name = name
        super.init(
            deliver: { base, value in
                unsafeDowncast(base, to: SubjectConduit<Input, Failure, Downstream, Parent>.self).slot.withDownstream(as: Downstream.self) { $0.receive(value) } ?? .none
            },
            // Closures, not the static methods themselves: a partially
            // applied static method captures the generic metatypes.
            request: { base, demand in SubjectConduit.forwardRequest(base, demand) },
            cancel: { base in SubjectConduit.forwardCancel(base) })
    }

    /// The request entry point both initialisers install: to the subject,
    /// until the conduit has left it.
    @inlinable
    static func forwardRequest(_ base: ConduitBase<Input, Failure>, _ demand: Subscribers.Demand) {
        unsafeDowncast(base, to: SubjectConduit<Input, Failure, Downstream, Parent>.self).currentParent?.conduitRequested(base, demand)
    }

    /// The cancel entry point both initialisers install.
    @inlinable
    static func forwardCancel(_ base: ConduitBase<Input, Failure>) {
        unsafeDowncast(base, to: SubjectConduit<Input, Failure, Downstream, Parent>.self).currentParent?.conduitCancelled(base)
    }

    deinit {
        slot.take()?.release()
    }

    /// Runs `body` with the subscriber, without retaining it; nil once
    /// dropped. Only while the conduit is in its subject's list.
    @inlinable @inline(__always)
    func withDownstream<R>(_ body: (Downstream) -> R) -> R? {
        slot.withDownstream(as: Downstream.self, isObject: holdsObject, body)
    }

    /// The subject, until the conduit finishes or is cancelled.
    @inlinable
    var currentParent: Parent? {
        guard let parent = links.withLock({ $0.parent }) else { return nil }
        return unsafeDowncast(parent, to: Parent.self)
    }

    @usableFromInline
    override func finish(_ completion: Subscribers.Completion<Failure>) {
        withDownstream { $0.receive(completion: completion) }
    }

    @usableFromInline
    override func dropLinks(lastDemand: Subscribers.Demand) {
        let (parent, object) = links.withLock { l -> (AnyObject?, Unmanaged<AnyObject>?) in
            guard !l.dropped else { return (nil, nil) }
            l.dropped = true
            l.lastDemand = lastDemand
            let taken = (l.parent, slot.take())
            l.parent = nil
            return taken
        }
        // Released here, outside the lock: deinitialisers may run.
        object?.release()
        _ = parent
    }

    @usableFromInline var description: String { name.description }

    /// `parent`, `downstream`, `demand` and `subject`, as Combine's subject
    /// subscriptions report them (`nil` once finished or cancelled).
    @usableFromInline var customMirror: Mirror {
        let snapshot = links.withLock { l -> (Parent?, Any?, Subscribers.Demand, Bool) in
            (l.parent.map { unsafeDowncast($0, to: Parent.self) }, withDownstream { $0 as Any }, l.lastDemand, l.dropped)
        }
        let demand = snapshot.3 ? snapshot.2 : (snapshot.0?.conduitDemand(self) ?? .none)
        let children: [Mirror.Child] = [
            ("parent", snapshot.0 as Any),
            ("downstream", snapshot.1 as Any),
            ("demand", demand),
            ("subject", snapshot.0 as Any),
        ]
        return Mirror(self, children: children)
    }

    @usableFromInline var playgroundDescription: Any { description }
}
