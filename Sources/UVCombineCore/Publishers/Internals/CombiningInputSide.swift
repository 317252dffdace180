/// The engine of an operator that combines inputs of different types into
/// a shared store (`zip`'s queues, `combineLatest`'s latest values), as its
/// inputs' subscriber (``CombiningInputSide``) sees it. ``ZipInner`` and
/// ``CombineLatestInner`` conform; the side is specialised with the
/// concrete engine, so the calls below are direct.
@usableFromInline
internal protocol CombiningInputEngine<Store, Failure>: Subscription, CustomStringConvertible {
    /// Where each input's values are kept (a tuple, one slot per input).
    associatedtype Store
    associatedtype Failure: Error
    func receive(subscription: any Subscription, input i: Int)
    func receive<Input>(_ value: Input, input i: Int, store: (inout Store, Input) -> Void) -> Subscribers.Demand
    func receive(completion: Subscribers.Completion<Failure>, input i: Int)
}

/// The subscriber a `zip` or `combineLatest` engine hands each input: its
/// index, and a non-capturing closure that writes the input's value into
/// the engine's store (formed where the input's type is known, so the value
/// path runs specialised code).
@usableFromInline
internal struct CombiningInputSide<Engine: CombiningInputEngine, Input>: Subscriber,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
    @usableFromInline typealias Failure = Engine.Failure

    @usableFromInline let inner: Engine
    @usableFromInline let index: Int
    /// Writes this input's value into the engine's store; non-capturing.
    @usableFromInline let store: (inout Engine.Store, Input) -> Void
    @usableFromInline let combineIdentifier = CombineIdentifier()

    @inlinable
    init(inner: Engine, index: Int, store: @escaping (inout Engine.Store, Input) -> Void) {
        self.inner = inner
        self.index = index
        self.store = store
    }

    @inlinable
    func receive(subscription: any Subscription) {
        inner.receive(subscription: subscription, input: index)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        inner.receive(input, input: index, store: store)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        inner.receive(completion: completion, input: index)
    }

    /// The operator's name (`Zip`, `CombineLatest`), as Combine's sides.
    @usableFromInline var description: String { inner.description }
    @usableFromInline var customMirror: Mirror {
        Mirror(self, children: ["parentSubscription": inner.combineIdentifier])
    }
    @usableFromInline var playgroundDescription: Any { description }
}
