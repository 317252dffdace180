/// What a conduit asks of its subject.
@usableFromInline
internal protocol ConduitParent<Output, Failure>: AnyObject {
    associatedtype Output
    associatedtype Failure: Error
    func conduitRequested(_ conduit: ConduitBase<Output, Failure>, _ demand: Subscribers.Demand)
    func conduitCancelled(_ conduit: ConduitBase<Output, Failure>)
    /// The demand `conduit` has now (for `customMirror`).
    func conduitDemand(_ conduit: ConduitBase<Output, Failure>) -> Subscribers.Demand?
}

extension ConduitParent {
    /// Unknown by default.
    @usableFromInline
    internal func conduitDemand(_ conduit: ConduitBase<Output, Failure>) -> Subscribers.Demand? { nil }
}
