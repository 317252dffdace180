/// One subscriber's subscription to a subject, non-generic over the
/// subscriber type so a subject can hold subscribers of different types.
///
/// Why the entry points are stored functions and not overridden methods: a
/// class method reached through the base class (or through
/// `any Subscription`) runs the *unspecialised* generic body, which is slow
/// and allocates (re-abstraction thunks, coroutine frames). The subclass
/// fills them with non-capturing closures formed in its `@inlinable`
/// initialiser, which the subscribing call site specialises for the
/// concrete subscriber and subject: values, requests and cancels then run
/// specialised code behind one indirect call, and cost no allocation.
///
/// Why `Failure` is unconstrained here (`finish` asks for `Error`): the
/// runtime checks a superclass's generic requirements when it builds a
/// subclass's metadata from the superclass's mangled name, and a
/// `Failure: Error` requirement is a conformance lookup, a scan of every
/// conformance record of the image the first time for each failure type
/// (0.12 M instructions at the C library's start-up, README "Footprint").
/// Every conduit's failure type is an `Error` all the same: the subclasses
/// and the subject engine require it.
@usableFromInline
internal class ConduitBase<Output, Failure>: Subscription {
    @usableFromInline let deliver: (ConduitBase<Output, Failure>, Output) -> Subscribers.Demand
    @usableFromInline let requestImpl: (ConduitBase<Output, Failure>, Subscribers.Demand) -> Void
    @usableFromInline let cancelImpl: (ConduitBase<Output, Failure>) -> Void

    @inlinable
    init(deliver: @escaping (ConduitBase<Output, Failure>, Output) -> Subscribers.Demand,
         request: @escaping (ConduitBase<Output, Failure>, Subscribers.Demand) -> Void,
         cancel: @escaping (ConduitBase<Output, Failure>) -> Void) {
        self.deliver = deliver
        self.requestImpl = request
        self.cancelImpl = cancel
    }

    /// Delivers the completion; called once, under the subject's gate.
    @usableFromInline func finish(_ completion: Subscribers.Completion<Failure>) where Failure: Error {
        violation("abstract ConduitBase.finish")
    }

    /// Drops the subscriber and the subject once the conduit has left the
    /// subject's list (finished, cancelled or detached). Not under the gate.
    @usableFromInline func dropLinks(lastDemand: Subscribers.Demand) {
        violation("abstract ConduitBase.dropLinks")
    }

    /// Traps on `.none`, as Combine's subject subscriptions do (their
    /// `request` asserts a non-zero demand); so do `multicast` and `share`
    /// subscribers, whose requests reach a subject's conduit.
    @usableFromInline
    final func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        requestImpl(self, demand)
    }

    @usableFromInline
    final func cancel() {
        cancelImpl(self)
    }
}
